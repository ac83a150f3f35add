import Reactor
import Glibc
import Runtime

/// The connections of one `HTTP2Client` and the queue of requests waiting for a stream.
/// Loop-confined: every method runs on `loop`'s thread.
final class ClientPool: EventLoopFlushable {
    let configuration: HTTP2ClientConfiguration
    let loop: EventLoop
    let statistics: HTTP2ClientStatistics
    private let tls: TLSContext
    private let logger: Logger
    private var connections: [ClientConnection] = []
    private var queue = FIFO<PendingRequest>()
    private var consecutiveFailures = 0
    private var nextConnectAt: UInt64 = 0
    private var wakeupScheduled = false
    private var tickRunning = false
    private var isShutDown = false

    init(configuration: HTTP2ClientConfiguration, loop: EventLoop, tls: TLSContext, statistics: HTTP2ClientStatistics, logger: Logger) {
        self.configuration = configuration
        self.loop = loop
        self.tls = tls
        self.statistics = statistics
        self.logger = logger
    }

    func enqueue(_ request: HTTP2Request, _ continuation: CheckedContinuation<HTTP2Response, any Error>) {
        enqueue(request, waiter: .single(continuation), deadline: EventLoop.monotonicNanoseconds() &+ configuration.requestTimeout.nanoseconds)
        loop.markDirty(self)
    }

    /// Queues every request of a batch in one go; `continuation` gets all the answers, in order.
    func enqueue(_ requests: [HTTP2Request], _ continuation: CheckedContinuation<[HTTP2BatchResult], Never>,
                 progress: HTTP2BatchProgress? = nil) {
        let collector = BatchCollector(count: requests.count, continuation: continuation, progress: progress)
        let deadline = EventLoop.monotonicNanoseconds() &+ configuration.requestTimeout.nanoseconds
        for (index, request) in requests.enumerated() {
            enqueue(request, waiter: .batch(collector, index: index), deadline: deadline)
        }
        loop.markDirty(self)
    }

    private func enqueue(_ request: HTTP2Request, waiter: PendingRequest.Waiter, deadline: UInt64) {
        let item = PendingRequest(request: request, waiter: waiter, deadline: deadline)
        if isShutDown { return item.fail(.shutdown) }
        if queue.count >= configuration.maxQueuedRequests { return item.fail(.connectionLost(message: "queue full")) }
        queue.append(item)
    }

    /// Why a request goes back to the queue.
    enum RequeueReason {
        /// Never left this client (connection not usable any more).
        case local
        /// Above a GOAWAY's last-stream-id: not processed; bounded by the request deadline only.
        case goAway
        /// RST_STREAM REFUSED_STREAM: not processed; counted against `maxRequeues`.
        case refusedStream
    }

    /// Puts a request the server did not process back at the front of the queue.
    func requeue(_ item: PendingRequest, _ reason: RequeueReason) {
        guard !item.completed else { return }
        if reason != .local { statistics.requeued.add(1, ordering: .relaxed) }
        if reason == .refusedStream {
            item.requeues += 1
            if item.requeues > configuration.maxRequeues { return item.fail(.refused(attempts: item.requeues)) }
        }
        if isShutDown { return item.fail(.shutdown) }
        queue.prepend(item)
        loop.markDirty(self)
    }

    /// Hands queued requests to the ready connections with free streams, least loaded first.
    func flushPending() {
        startTicking()
        while !queue.isEmpty {
            var best: ClientConnection?
            var bestCapacity = 0
            for connection in connections {
                let capacity = connection.capacity
                if capacity > bestCapacity {
                    best = connection
                    bestCapacity = capacity
                }
            }
            guard let best else { break }
            // Give this connection a fair share, not everything at once.
            let share = max(1, min(bestCapacity, (queue.count + connections.count - 1) / max(1, connections.count)))
            for _ in 0..<share {
                guard let item = queue.popFirst() else { break }
                if item.completed { continue }
                best.submit(item, statistics: statistics)
            }
        }
        if !queue.isEmpty { openConnectionsIfNeeded() }
    }

    private func openConnectionsIfNeeded() {
        guard !isShutDown else { return }
        let live = connections.filter(\.isLive).count
        guard live < configuration.connections else { return }
        let now = EventLoop.monotonicNanoseconds()
        if now < nextConnectAt {
            if !wakeupScheduled {
                wakeupScheduled = true
                loop.schedule(afterNanoseconds: nextConnectAt - now) { [weak self] in
                    guard let self else { return }
                    wakeupScheduled = false
                    loop.markDirty(self)
                }
            }
            return
        }
        let wanted = consecutiveFailures == 0 ? configuration.connections - live : 1
        for _ in 0..<wanted { openConnection() }
    }

    private func openConnection() {
        do {
            let addresses = try Socket.resolve(host: configuration.host, port: configuration.port)
            guard let address = addresses.first else {
                throw HTTP2Error.connectFailed(host: configuration.host, port: configuration.port, message: "no address")
            }
            let fd = try Socket.startConnect(to: address, host: configuration.host, port: configuration.port)
            let stream: TLSStream
            do {
                stream = try TLSStream(client: tls, fd: fd, serverName: configuration.serverName)
            } catch {
                close(fd)
                throw error
            }
            let connection = ClientConnection(pool: self, loop: loop, fd: fd, tls: stream, configuration: configuration)
            connections.append(connection)
            connection.attach()
        } catch let error as HTTP2Error {
            connectFailed(error.description)
        } catch {
            connectFailed("\(error)")
        }
    }

    func connectionReady(_ connection: ClientConnection) {
        consecutiveFailures = 0
        statistics.opened.add(1, ordering: .relaxed)
        loop.markDirty(self)
    }

    func connectionDraining(_ connection: ClientConnection) {
        statistics.goAways.add(1, ordering: .relaxed)
        logger.debug("HTTP/2 GOAWAY received", ["host": configuration.host])
        loop.markDirty(self)
    }

    func connectionClosed(_ connection: ClientConnection, wasReady: Bool, reason: String) {
        connections.removeAll { $0 === connection }
        if wasReady {
            logger.debug("HTTP/2 connection closed", ["host": configuration.host, "reason": reason])
            loop.markDirty(self)
        } else {
            connectFailed(reason)
        }
    }

    private func connectFailed(_ reason: String) {
        statistics.failedConnects.add(1, ordering: .relaxed)
        consecutiveFailures += 1
        let delay = Backoff(initial: configuration.reconnectBaseDelay, maximum: configuration.reconnectMaxDelay)
            .jitteredDelay(afterFailures: consecutiveFailures)
        nextConnectAt = EventLoop.monotonicNanoseconds() &+ delay.nanoseconds
        logger.warning("HTTP/2 connect failed", [
            "host": configuration.host, "port": String(configuration.port), "reason": reason,
            "failures": String(consecutiveFailures),
        ])
        // With nothing left that could carry them, fail the waiting requests now: the caller retries.
        if !connections.contains(where: \.isLive) {
            let error = HTTP2Error.connectFailed(host: configuration.host, port: configuration.port, message: reason)
            for item in queue.removeAll() { item.fail(error) }
        }
    }

    private func startTicking() {
        guard !tickRunning, !isShutDown else { return }
        tickRunning = true
        loop.schedule(afterNanoseconds: 100_000_000) { [weak self] in self?.tick() }
    }

    private func tick() {
        tickRunning = false
        guard !isShutDown else { return }
        let now = EventLoop.monotonicNanoseconds()
        for connection in connections { connection.tick(now: now, statistics: statistics) }
        while let first = queue.first, first.completed || first.deadline <= now {
            _ = queue.popFirst()
            first.fail(.timeout(seconds: configuration.requestTimeout.seconds))
        }
        if !connections.isEmpty || !queue.isEmpty { startTicking() }
    }

    func shutdown() {
        isShutDown = true
        for item in queue.removeAll() { item.fail(.shutdown) }
        for connection in connections { connection.close(reason: "client shut down") }
        connections.removeAll()
    }
}
