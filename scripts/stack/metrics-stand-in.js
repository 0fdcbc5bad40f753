// The Worker's `REQUEST_METRICS` binding where a test reads the data points (`serveWorker` with
// `requestMetrics: 'logged'`): a wrapped binding (workerd runs it in the Worker's own isolate) with
// Analytics Engine's `writeDataPoint`, which prints each point as one JSON log line instead of
// sending it. Miniflare's own simulation of the binding drops the points.
export default function (env) {
  return {
    writeDataPoint(point) {
      console.log(JSON.stringify({ level: 'info', message: 'analytics data point', dataset: env.DATASET, ...point }));
    },
  };
}
