import Runtime
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd that answers requests with a `Router`.
///
/// libmicrohttpd's thread pool (poll(2); see MHDDaemon for why not epoll) parses requests and writes answers; each complete request is handed
/// to the router on Swift's task pool while its connection is suspended, so slow handlers never block the
/// event loop. Bodies larger than `maxBodyBytes` are answered 413 before they are read in full.
///
/// ```swift
/// var router = Router()
/// router.get("/health") { _ in .json(["status": "ok"]) }
/// let server = HTTPServer(configuration: .init(port: 8080), router: router, logger: logger)
/// try server.start()
/// defer { server.stopInBackground() }   // or `await server.stop()` on the way out
/// ```
public final class HTTPServer: Sendable {
    private enum State {
        case idle
        case running(MHDDaemon, port: UInt16)
        case stopped(port: UInt16)
    }

    /// The settings the server was created with.
    public let configuration: HTTPServerConfiguration
    private let core: ServerCore
    private let state = LockedValue(State.idle)

    /// Creates a stopped server.
    /// - Parameters:
    ///   - configuration: address, limits and thread count.
    ///   - router: the routes; copied, later changes to the caller's router have no effect.
    ///   - logger: receives handler failures (without bodies) and libmicrohttpd warnings.
    ///   - metrics: when given, receives `http_requests_total{method,route,status}` and
    ///     `http_request_duration_seconds{method,route}`.
    public init(
        configuration: HTTPServerConfiguration = HTTPServerConfiguration(), router: Router, logger: Logger,
        metrics: MetricsRegistry? = nil
    ) {
        self.configuration = configuration
        self.core = ServerCore(
            router: router, configuration: configuration, logger: logger, metrics: HTTPMetrics(registry: metrics))
    }

    /// Binds `host:port` and starts serving.
    /// - Throws: `HTTPServerError` naming `host:port` when the address is invalid or in use, when the
    ///   daemon cannot start, or when the server was already started.
    public func start() throws(HTTPServerError) {
        let host = configuration.host
        try state.withLock { state throws(HTTPServerError) in
            guard case .idle = state else {
                throw HTTPServerError(
                    kind: .invalidState, host: host, port: configuration.port, reason: "already started or stopped")
            }
            let backlog = Int32(clamping: min(4096, max(16, configuration.connectionLimit)))
            let socket = try ListeningSocket.open(host: host, port: configuration.port, backlog: backlog)
            let daemon = try MHDDaemon(core: core, listeningSocket: socket.fd, host: host, port: socket.port)
            state = .running(daemon, port: socket.port)
        }
        core.logger.info("HTTP server listening", ["host": host, "port": String(port)])
    }

    /// The bound port: the kernel's choice when configured with 0. Before `start()` it is the configured
    /// port; after `stop()` it is the port that was bound.
    public var port: UInt16 {
        state.withLock { state in
            switch state {
            case .idle: configuration.port
            case .running(_, let port), .stopped(let port): port
            }
        }
    }

    /// Stops gracefully: stops accepting connections, lets in-flight requests finish for up to
    /// `shutdownGracePeriod` (answers meanwhile carry `Connection: close`), answers the rest 503, then
    /// stops libmicrohttpd. The caller suspends; no thread blocks: the drain is awaited on the
    /// in-flight count, and `MHD_stop_daemon` (which joins its threads) runs on `BlockingCalls`.
    /// Idempotent; a concurrent second call returns at once.
    public func stop() async {
        guard let daemon = takeDaemon() else { return }
        core.stopping.store(true, ordering: .relaxed)
        daemon.quiesce()
        let drained = await core.inFlight.wait(until: { $0 == 0 }, timeout: configuration.shutdownGracePeriod)
        let forced = core.closeGate()
        if !drained {
            _ = await core.inFlight.wait(until: { $0 == 0 }, timeout: .seconds(2))
        }
        await BlockingCalls.run { daemon.stop() }
        core.logger.info("HTTP server stopped", ["port": String(port), "forced": String(forced)])
    }

    /// Starts `stop()` and returns at once (for `defer`s and other synchronous code).
    public func stopInBackground() {
        Task { await self.stop() }
    }

    /// Moves a running server to `stopped`, returning its daemon (nil when it was not running).
    private func takeDaemon() -> MHDDaemon? {
        state.withLock { state in
            switch state {
            case .idle:
                state = .stopped(port: configuration.port)
                return nil
            case .stopped:
                return nil
            case .running(let daemon, let port):
                state = .stopped(port: port)
                return daemon
            }
        }
    }

    deinit {
        // Dropped while still running: stop without waiting for a drain, on the blocking-call
        // queue (MHD_stop_daemon joins threads; a deinit may run on a cooperative thread).
        guard let daemon = takeDaemon() else { return }
        let core = self.core
        BlockingCalls.detach {
            _ = core.closeGate()
            daemon.stop()
        }
    }
}
