import Runtime
import Synchronization

/// The HTTP/1.1 server of every process (the api, each service's operations port, the fake feed), on its
/// own epoll threads (`Reactor`), answering requests with a `Router`.
///
/// One framing rule runs before any handler: RFC 9112, strictly (`RequestHeadParser`, `RequestFraming`,
/// `ChunkedBodyDecoder`). Requests that break it, time out or exceed a limit are answered by the server
/// itself (`HTTPRejection`: 400, 408, 413, 414, 417, 431, 501, 505), counted in
/// `http_rejected_requests_total{reason}` and logged without header values; the connection is then closed
/// lingering. Complete requests run on Swift's task pool while their connection stops reading, so slow
/// handlers never block a server thread and pipelined requests are answered in order. Every answer
/// carries `Date` and `X-Content-Type-Options: nosniff`.
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
        case running([ServerWorker], port: UInt16)
        case stopped(port: UInt16)
    }

    /// The settings the server was created with.
    public let configuration: HTTPServerConfiguration
    private let core: ServerCore
    private let state = LockedValue(State.idle)

    /// Creates a stopped server.
    /// - Parameters:
    ///   - configuration: address, limits, timeouts and thread count.
    ///   - router: the routes; copied, later changes to the caller's router have no effect.
    ///   - logger: receives handler failures (without bodies) and refused requests (without header values).
    ///   - metrics: when given, receives `http_requests_total{method,route,status}`,
    ///     `http_request_duration_seconds{method,route}` and `http_rejected_requests_total{reason}`.
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
    ///   server threads cannot start, or when the server was already started.
    public func start() throws(HTTPServerError) {
        let host = configuration.host
        try state.withLock { state throws(HTTPServerError) in
            guard case .idle = state else {
                throw HTTPServerError(
                    kind: .invalidState, host: host, port: configuration.port, reason: "already started or stopped")
            }
            let backlog = Int32(clamping: min(4096, max(16, configuration.connectionLimit)))
            let socket = try ListeningSocket.open(host: host, port: configuration.port, backlog: backlog)
            var workers: [ServerWorker] = []
            for index in 0..<max(1, configuration.threadCount) {
                workers.append(try ServerWorker(core: core, index: index))
            }
            for worker in workers { worker.start(socket) }
            state = .running(workers, port: socket.port)
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

    /// Stops gracefully: stops accepting and closes idle connections, lets in-flight requests finish for up
    /// to `shutdownGracePeriod` (answers meanwhile carry `Connection: close`), answers the rest 503, waits
    /// up to 2 s for answers to be written, then closes what is left and stops the threads. The caller
    /// suspends; no thread blocks. Idempotent; a concurrent second call returns at once.
    public func stop() async {
        guard let workers = takeWorkers() else { return }
        core.stopping.store(true, ordering: .releasing)
        for worker in workers { await worker.quiesce() }
        let drained = await core.inFlight.wait(until: { $0 == 0 }, timeout: configuration.shutdownGracePeriod)
        core.admitting.store(false, ordering: .releasing)
        var forced = 0
        let unavailable = HTTPError.unavailable("server is shutting down").response
        for worker in workers { forced += await worker.answerRunning(with: unavailable) }
        if !drained {
            _ = await core.inFlight.wait(until: { $0 == 0 }, timeout: .seconds(2))
        }
        _ = await core.openConnections.wait(until: { $0 == 0 }, timeout: .seconds(2))
        for worker in workers { await worker.shutdown() }
        core.logger.info("HTTP server stopped", ["port": String(port), "forced": String(forced)])
    }

    /// Starts `stop()` and returns at once (for `defer`s and other synchronous code).
    public func stopInBackground() {
        Task { await self.stop() }
    }

    /// Moves a running server to `stopped`, returning its threads (nil when it was not running).
    private func takeWorkers() -> [ServerWorker]? {
        state.withLock { state in
            switch state {
            case .idle:
                state = .stopped(port: configuration.port)
                return nil
            case .stopped:
                return nil
            case .running(let workers, let port):
                state = .stopped(port: port)
                return workers
            }
        }
    }

    deinit {
        // Dropped while still running: close everything without a drain.
        guard let workers = takeWorkers() else { return }
        core.admitting.store(false, ordering: .releasing)
        for worker in workers { worker.shutdownInBackground() }
    }
}
