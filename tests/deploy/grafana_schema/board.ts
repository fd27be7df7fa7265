// The types tests/deploy/test_grafana_schema.py holds grafana/dashboards/ragmon.json to: Grafana's own, as it
// publishes them in @grafana/schema, loosened only where a dashboard file may differ from a live object.
import type { AnnotationQuery, Dashboard, Panel, RowPanel, VariableModel } from '@grafana/schema';
import type * as heatmap from '@grafana/schema/dist/esm/raw/composable/heatmap/panelcfg/x/HeatmapPanelCfg_types.gen';
import type * as stat from '@grafana/schema/dist/esm/raw/composable/stat/panelcfg/x/StatPanelCfg_types.gen';
import type * as timeseries from '@grafana/schema/dist/esm/raw/composable/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen';

// Every field optional, as Grafana fills in what a file leaves out, and a string enum's members written as their
// values, as JSON can only write them. A key the type does not know, or a value it does not admit, still fails.
type Loose<T> = T extends string ? `${T}` | T
  : T extends number | boolean ? T
  : T extends Array<infer U> ? Array<Loose<U>>
  : T extends object ? { [K in keyof T]?: Loose<T[K]> }
  : T;

// What the Prometheus data source reads from an annotation query besides the schema's fields: the shape Grafana's
// own grafonnet library writes (annotation.expr, step, titleFormat, textFormat, tagKeys, useValueForTime).
interface PrometheusAnnotation {
  expr?: string;
  step?: string;
  titleFormat?: string;
  textFormat?: string;
  tagKeys?: string;
  useValueForTime?: boolean;
}

// The dashboard without its panels, which are held to their own types one by one: in a union of panel and row
// types a key either knows would pass on both.
export type Board = Loose<Omit<Dashboard, 'annotations' | 'templating' | 'panels'>> & {
  annotations?: { list?: Array<Loose<AnnotationQuery> & PrometheusAnnotation> };
  // `definition` is the query as Grafana's editor shows it, which Grafana writes beside `query` on export.
  templating?: { list?: Array<Loose<VariableModel> & { definition?: string }> };
  panels?: unknown[];
};

export interface Panels {
  row: Loose<RowPanel>;
  stat: Loose<Panel>;
  timeseries: Loose<Panel>;
  heatmap: Loose<Panel>;
}

export interface Options {
  stat: Loose<stat.Options>;
  timeseries: Loose<timeseries.Options>;
  heatmap: Loose<heatmap.Options>;
}

export interface Custom {
  timeseries: Loose<timeseries.FieldConfig>;
  heatmap: Loose<heatmap.FieldConfig>;
}
