import Glibc
import Reactor
import Runtime

/// One server thread: an `EventLoop` that accepts from the shared listening socket and runs the
/// connections it accepted, with a sweep of their deadlines every 250 ms.
///
/// Thread safety (`@unchecked Sendable`): `listener`, `connections`, the read buffer and the date cache
/// are touched only on the loop's thread; other threads reach them through the async methods below,
/// which hop onto the loop.
final class ServerWorker: EventLoopHandler, @unchecked Sendable {
    let loop: EventLoop
    let core: ServerCore
    private var listener: ListeningSocket?
    private var connections: [Int32: HTTPConnection] = [:]
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private var date = HTTPDate()
    private var running = true

    init(core: ServerCore, index: Int) throws(HTTPServerError) {
        self.core = core
        do {
            loop = try EventLoop(name: "http-\(index)")
        } catch {
            throw HTTPServerError(
                kind: .eventLoopFailed, host: core.configuration.host, port: core.configuration.port,
                reason: "\(error)")
        }
    }

    deinit { readBuffer.deallocate() }

    /// Starts the thread and begins accepting from `listener`.
    func start(_ listener: ListeningSocket) {
        loop.start()
        loop.execute { [self] in
            self.listener = listener
            loop.register(listener.fd, handler: self)
            scheduleSweep()
        }
    }

    /// Accepts what is pending (the listening socket is level-triggered and shared by every thread; a
    /// thread that loses the race reads EAGAIN).
    func handleEvents(readable: Bool, writable: Bool, failed: Bool) {
        guard let listener else { return }
        for _ in 0..<64 {
            let fd = accept(listener.fd, nil, nil)
            guard fd >= 0 else {
                if errno == EMFILE || errno == ENFILE {
                    core.logger.warning("cannot accept: out of file descriptors", ["errno": String(errno)])
                }
                return
            }
            guard core.reserveConnection() else {
                Glibc.close(fd)
                core.refused(
                    HTTPRejection(.connectionLimit, "\(core.configuration.connectionLimit) connections open"),
                    method: nil, path: nil)
                continue
            }
            // accept4 is not in Swift's Glibc module: the flags are set after accept.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var yes: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            let connection = HTTPConnection(fd: fd, worker: self, now: EventLoop.monotonicNanoseconds())
            connections[fd] = connection
            loop.register(fd, handler: connection)
        }
    }

    /// Lends the thread's read buffer (64 KB).
    func withReadBuffer<T>(_ body: (UnsafeMutableRawBufferPointer) -> T) -> T { body(readBuffer) }

    /// The `Date` header value for now.
    func dateBytes() -> [UInt8] {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return date.bytes(unixSeconds: Int64(now.tv_sec))
    }

    /// Forgets and closes a connection (called by the connection itself).
    func remove(_ connection: HTTPConnection) {
        guard connections.removeValue(forKey: connection.fd) != nil else { return }
        loop.unregister(connection.fd)
        Glibc.close(connection.fd)
        core.releaseConnection()
    }

    private func scheduleSweep() {
        loop.schedule(afterNanoseconds: 250_000_000) { [self] in
            guard running else { return }
            let now = EventLoop.monotonicNanoseconds()
            for connection in Array(connections.values) where connection.deadline <= now {
                connection.checkDeadline(now: now)
            }
            scheduleSweep()
        }
    }

    // MARK: - Stopping (from any thread)

    /// Stops accepting and closes idle keep-alive connections.
    func quiesce() async {
        await onLoop { [self] in
            if let listener { loop.unregister(listener.fd) }
            listener = nil
            for connection in Array(connections.values) where connection.isIdle { connection.close() }
        }
    }

    /// Answers every running request with `response` now; returns how many.
    func answerRunning(with response: HTTPResponse) async -> Int {
        await onLoop { [self] in
            let running = connections.values.filter(\.isHandling)
            for connection in running { connection.answerEarly(response) }
            return running.count
        }
    }

    /// Closes every connection and stops the thread.
    func shutdown() async {
        await onLoop { [self] in closeAllAndStop() }
    }

    /// Like `shutdown()` without waiting (from a `deinit`).
    func shutdownInBackground() {
        loop.execute { [self] in closeAllAndStop() }
    }

    private func closeAllAndStop() {
        running = false
        if let listener { loop.unregister(listener.fd) }
        listener = nil
        for connection in Array(connections.values) { connection.close() }
        loop.stop()
    }

    private func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            loop.execute { continuation.resume(returning: body()) }
        }
    }
}
