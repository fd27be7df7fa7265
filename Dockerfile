# syntax=docker/dockerfile:1
# ragmon: `docker build -t ragmon:0.1.0 .` then `docker run ragmon:0.1.0` (runs `ragmon serve`).
#
# The OTLP receivers listen on loopback by default, which is right for the sidecar shape (the app
# shares the pod's network namespace) and keeps an unauthenticated ingest port off the pod IP. Where
# the sender is another container or pod (docker compose, the Collector scale-out), override:
#   -e RAGMON_GRPC_LISTEN=0.0.0.0:4317 -e RAGMON_HTTP_LISTEN=0.0.0.0:4318
# Secrets (ANTHROPIC_API_KEY, RAGMON_TOKEN) come from the runtime environment, never from this file.
# The Claude judge's spend of the day is kept in /tmp (an emptyDir in the manifests, which outlives a
# container's restart), so a crash-looping sidecar resumes its daily cap rather than starting it afresh.
# Where /tmp is a tmpfs (compose), mount a volume on /var/lib/ragmon, owned by the service user, and set
# RAGMON_LLM_BUDGET_FILE there.
# Extras: serve (receivers, metrics), claude (--llm-sample-rate) and demo (the OTel SDK and the demo app,
# which the compose file and the Kubernetes manifest run from this image as stand-in traffic).

FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY ragmon/ ragmon/
RUN python -m pip wheel --no-deps --wheel-dir /wheels . \
 && python -m venv /opt/venv \
 && /opt/venv/bin/pip install "$(echo /wheels/ragmon-*.whl)[serve,claude,demo]"

FROM python:3.11-slim-bookworm
LABEL org.opencontainers.image.title="ragmon" \
      org.opencontainers.image.description="Groundedness and hallucination monitoring for RAG: OTLP sidecar with Prometheus metrics" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --system --gid 10001 ragmon \
 && useradd --system --uid 10001 --gid ragmon --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin ragmon \
 && install -d -o 10001 -g 10001 -m 700 /var/lib/ragmon
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    RAGMON_HTTP_LISTEN=127.0.0.1:4318 \
    RAGMON_GRPC_LISTEN=127.0.0.1:4317 \
    RAGMON_METRICS_LISTEN=0.0.0.0:9464 \
    RAGMON_LLM_BUDGET_FILE=/tmp/ragmon-claude-spend.json
USER 10001:10001
EXPOSE 4317 4318 9464
ENTRYPOINT ["ragmon"]
CMD ["serve"]
