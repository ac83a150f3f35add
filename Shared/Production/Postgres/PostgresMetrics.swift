import Runtime

/// The pool's instruments; all no-ops that nobody renders when no registry is given.
struct PostgresMetrics: Sendable {
    let open: Gauge
    let opened: Counter
    let discarded: Counter
    let retries: Counter
    let errors: Counter

    init(registry: MetricsRegistry?) {
        let registry = registry ?? MetricsRegistry()
        open = registry.gauge("postgres_pool_connections", help: "PostgreSQL connections open (idle and in use)")
        opened = registry.counter("postgres_connections_opened_total", help: "PostgreSQL connections opened")
        discarded = registry.counter(
            "postgres_connections_discarded_total", help: "PostgreSQL connections thrown away as broken or dirty")
        retries = registry.counter(
            "postgres_statement_retries_total", help: "Statements retried on a new connection after a dead one")
        errors = registry.counter("postgres_statement_errors_total", help: "Pooled statements that failed")
    }
}
