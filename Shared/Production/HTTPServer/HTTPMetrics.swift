import Runtime
import Synchronization

/// The server's request metrics: `http_requests_total{method,route,status}`,
/// `http_request_duration_seconds{method,route}` and `http_rejected_requests_total{reason}` (every reason
/// exported at 0 from the start) and `http_open_connections`. A no-op without a registry.
///
/// The registry's instruments are resolved once per (method, route, status) and kept, so a request
/// costs one small dictionary lookup instead of building, sorting and rendering label sets twice.
/// Routes are patterns (bounded by the router) and methods and statuses are bounded, so the cache is too.
struct HTTPMetrics: Sendable {
    let registry: MetricsRegistry?
    private let instruments = InstrumentCache()
    private let rejections: [HTTPRejection.Reason: Counter]
    /// Connections open now.
    let openConnections: Gauge?

    init(registry: MetricsRegistry?) {
        self.registry = registry
        var rejections: [HTTPRejection.Reason: Counter] = [:]
        if let registry {
            for reason in HTTPRejection.Reason.allCases {
                rejections[reason] = registry.counter(
                    "http_rejected_requests_total",
                    help: "Requests and connections the server refused before any handler ran, by reason.",
                    labels: ["reason": reason.rawValue])
            }
        }
        self.rejections = rejections
        openConnections = registry?.gauge("http_open_connections", help: "Client connections open now.")
    }

    /// Counts one request (or connection) refused for `reason`.
    func rejected(_ reason: HTTPRejection.Reason) {
        rejections[reason]?.increment()
    }

    private static let knownMethods: Set<String> = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]

    /// Records one answered request.
    func record(method: String, route: String?, status: Int, duration: Duration) {
        guard let registry else { return }
        let key = InstrumentCache.Key(method: method, route: route, status: status)
        let (counter, histogram) = instruments.get(key) {
            let route = route ?? "unmatched"
            // Clients choose the method token; only known ones become label values.
            let method = HTTPMetrics.knownMethods.contains(method) ? method : "OTHER"
            return (
                registry.counter(
                    "http_requests_total", help: "HTTP requests answered, by method, route pattern and status.",
                    labels: ["method": method, "route": route, "status": String(status)]),
                registry.histogram(
                    "http_request_duration_seconds", help: "Time from request line to completed answer.",
                    labels: ["method": method, "route": route]))
        }
        counter.increment()
        histogram.observe(duration)
    }
}

/// Resolved instruments by (method, route, status). Unknown methods are not cached (clients choose
/// them), so the cache stays bounded by the routes.
private final class InstrumentCache: Sendable {
    struct Key: Hashable {
        var method: String
        var route: String?
        var status: Int
    }

    private static let cachedMethods: Set<String> = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
    private let entries = LockedValue<[Key: (Counter, Histogram)]>([:])

    func get(_ key: Key, make: () -> (Counter, Histogram)) -> (Counter, Histogram) {
        if let found = entries.withLock({ $0[key] }) { return found }
        let made = make()
        if Self.cachedMethods.contains(key.method) { entries.withLock { $0[key] = made } }
        return made
    }
}
