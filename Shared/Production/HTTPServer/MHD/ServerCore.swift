import CMicroHTTPD
import Runtime
import Synchronization

/// Everything the libmicrohttpd callbacks need: the router, limits, logger, metrics, and the gate that
/// orders suspend/resume against shutdown. Passed to libmicrohttpd as `cls` (unretained: `MHDDaemon`
/// keeps it alive until after `MHD_stop_daemon`).
final class ServerCore: Sendable {
    /// Requests currently suspended, and whether new ones may still be suspended.
    private struct Gate {
        var open = true
        var suspended: [ObjectIdentifier: RequestState] = [:]
    }

    let router: Router
    let configuration: HTTPServerConfiguration
    let logger: Logger
    let metrics: HTTPMetrics
    private let gate = LockedValue(Gate())
    /// Requests whose access handler has been entered and whose completion was not yet notified;
    /// `HTTPServer.stop()` awaits it reaching zero.
    let inFlight = AsyncCondition(0)
    /// Set once `stop()` begins: answers carry `Connection: close`.
    let stopping = Atomic<Bool>(false)
    /// The last message libmicrohttpd logged (used to explain a start failure).
    let lastDaemonMessage = LockedValue<String?>(nil)

    init(router: Router, configuration: HTTPServerConfiguration, logger: Logger, metrics: HTTPMetrics) {
        self.router = router
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
    }

    /// Suspends `connection` and registers `state` as running, unless shutdown closed the gate.
    /// Returns false when the request must be answered right away instead.
    func suspend(_ state: RequestState, connection: OpaquePointer, route: String?) -> Bool {
        gate.withLock { gate in
            guard gate.open else { return false }
            state.markRunning(ConnectionHandle(pointer: connection), route: route)
            MHD_suspend_connection(connection)
            gate.suspended[ObjectIdentifier(state)] = state
            return true
        }
    }

    /// Stores the handler's answer and resumes the connection (libmicrohttpd then calls the access
    /// handler again, which queues the answer). Does nothing when shutdown already answered it.
    func complete(_ state: RequestState, with response: HTTPResponse) {
        gate.withLock { gate in
            guard let connection = state.finish(response) else { return }
            gate.suspended[ObjectIdentifier(state)] = nil
            MHD_resume_connection(connection.pointer)
        }
    }

    /// Closes the gate: every still-running request is answered 503 and resumed, and later requests are
    /// answered 503 without suspending. After this no `MHD_resume_connection` call happens any more,
    /// so the daemon may be stopped once in-flight requests drain.
    func closeGate() -> Int {
        gate.withLock { gate in
            gate.open = false
            let answer = HTTPError.unavailable("server is shutting down").response
            var forced = 0
            for state in gate.suspended.values {
                if let connection = state.finish(answer) {
                    MHD_resume_connection(connection.pointer)
                    forced += 1
                }
            }
            gate.suspended.removeAll()
            return forced
        }
    }
}
