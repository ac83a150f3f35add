import Runtime

/// The server's request metrics: `http_requests_total{method,route,status}` and
/// `http_request_duration_seconds{method,route}`. A no-op without a registry.
struct HTTPMetrics: Sendable {
    let registry: MetricsRegistry?

    private static let knownMethods: Set<String> = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]

    /// Records one answered request.
    func record(method: String, route: String?, status: Int, duration: Duration) {
        guard let registry else { return }
        let route = route ?? "unmatched"
        // Clients choose the method token; only known ones become label values.
        let method = HTTPMetrics.knownMethods.contains(method) ? method : "OTHER"
        registry.counter(
            "http_requests_total", help: "HTTP requests answered, by method, route pattern and status.",
            labels: ["method": method, "route": route, "status": String(status)]
        ).increment()
        registry.histogram(
            "http_request_duration_seconds", help: "Time from request line to completed answer.",
            labels: ["method": method, "route": route]
        ).observe(duration)
    }
}
