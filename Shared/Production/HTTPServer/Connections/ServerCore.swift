import Runtime
import Synchronization

/// What every server thread shares: the router, limits, logger, metrics, and the counters and flags that
/// order a graceful stop.
final class ServerCore: Sendable {
    let router: Router
    let configuration: HTTPServerConfiguration
    let logger: Logger
    let metrics: HTTPMetrics
    let headLimits: RequestHeadLimits
    /// Requests handed to a handler whose answer has not come back; `stop()` awaits zero.
    let inFlight = AsyncCondition(0)
    /// Open connections; bounded by `connectionLimit`; `stop()` awaits zero before closing the rest.
    let openConnections = AsyncCondition(0)
    /// Set once `stop()` begins: answers carry `Connection: close`.
    let stopping = Atomic<Bool>(false)
    /// Cleared after the grace period: requests are answered 503 without reaching a handler.
    let admitting = Atomic<Bool>(true)

    init(router: Router, configuration: HTTPServerConfiguration, logger: Logger, metrics: HTTPMetrics) {
        self.router = router
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.headLimits = RequestHeadLimits(maxBodyBytes: configuration.maxBodyBytes)
    }

    /// Counts a new connection unless the limit is reached.
    func reserveConnection() -> Bool {
        openConnections.update { count in
            guard count < configuration.connectionLimit else { return false }
            count += 1
            metrics.openConnections?.increment()
            return true
        }
    }

    func releaseConnection() {
        openConnections.update { $0 -= 1 }
        metrics.openConnections?.decrement()
    }

    /// Counts a request as in flight unless the gate is closed (then it is answered 503 at once).
    func admit() -> Bool {
        guard admitting.load(ordering: .acquiring) else { return false }
        inFlight.update { $0 += 1 }
        return true
    }

    /// Counts and logs a request the server refused itself (never with header values).
    func refused(_ rejection: HTTPRejection, method: String?, path: String?) {
        metrics.rejected(rejection.reason)
        var metadata = ["reason": rejection.reason.rawValue, "status": String(rejection.status), "detail": rejection.detail]
        if let method { metadata["method"] = String(method.prefix(32)) }
        if let path { metadata["path"] = String(path.prefix(128)) }
        logger.info("request refused", metadata)
    }
}
