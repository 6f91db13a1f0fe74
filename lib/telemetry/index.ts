// What the service tells its operator: Prometheus metrics and the access log.

export { DatabaseHealth } from "./database-health.ts";
export { type MetricSources, ServiceMetrics } from "./metrics.ts";
export { createRequestObserver } from "./request-observer.ts";
