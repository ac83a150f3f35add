import Glibc
import Reactor
import Runtime

/// One client connection on its server thread: reads and frames requests (RFC 9112, through
/// `RequestHeadParser` and `ChunkedBodyDecoder`), answers each complete one from the route's immediate
/// handler when it has the answer at hand, else hands it to the router on Swift's task pool, writes the
/// answer and either serves the next (keep-alive, pipelining) or closes lingering.
///
/// While a request is being answered by its async handler, or an answer waits for the client to read it, the
/// connection stops reading: pipelined requests wait in the kernel, so a client cannot queue work faster than it
/// takes answers (immediate answers written at once keep reading on). Each phase has a deadline
/// (`headerTimeout`, `bodyTimeout`, `connectionTimeout` for idle keep-alive and stalled writes, 2 s of
/// lingering) checked by the thread's sweep.
///
/// Thread safety (`@unchecked Sendable`): every stored property is touched only on its `EventLoop`'s
/// thread; the handler task reaches it through `loop.execute` and a generation number that makes a late
/// answer (after a shutdown 503 or a close) a no-op.
final class HTTPConnection: EventLoopHandler, @unchecked Sendable {
    private enum Phase {
        case awaitingHead
        case readingBody
        case handling
        case writing(close: Bool)
        case lingering
        case closed
    }

    /// What the metrics and the answer need to know of the request being served.
    private struct Current {
        var method: String
        var path: String
        var route: String?
        var isHead: Bool
        var keepAlive: Bool
    }

    let fd: Int32
    private unowned let worker: ServerWorker
    private var core: ServerCore { worker.core }
    private var phase = Phase.awaitingHead
    private var input: [UInt8] = []
    private var inputStart = 0
    private var parser: RequestHeadParser
    private var head: RequestHead?
    private var bodyRemaining = 0
    private var body: [UInt8] = []
    private var chunked: ChunkedBodyDecoder?
    private var current: Current?
    private var output: [UInt8] = []
    private var outputStart = 0
    private var generation = 0
    private var startedAt = ContinuousClock.now
    private(set) var deadline: UInt64
    private var readInterest = true
    private var writeInterest = false
    private var discarded = 0
    private var processing = false

    init(fd: Int32, worker: ServerWorker, now: UInt64) {
        self.fd = fd
        self.worker = worker
        self.parser = RequestHeadParser(limits: worker.core.headLimits)
        self.deadline = now &+ worker.core.configuration.headerTimeout.nanoseconds
    }

    /// Nothing received of a next request, nothing being answered: may be closed at once on stop.
    var isIdle: Bool {
        if case .awaitingHead = phase { return unconsumed == 0 }
        return false
    }

    /// A handler is running for this connection.
    var isHandling: Bool {
        if case .handling = phase { return true }
        return false
    }

    private var unconsumed: Int { input.count - inputStart }

    // MARK: - Events

    func handleEvents(readable: Bool, writable: Bool, failed: Bool) {
        if failed, !readable {
            close()
            return
        }
        if writable { flush() }
        // A failed write closes the connection: its descriptor number may already belong to someone else
        // (another thread's pipe or socket), so nothing reads it after that.
        if readable, readInterest, !isClosed { readInput() }
    }

    private func readInput() {
        guard !isClosed else { return }
        let count = worker.withReadBuffer { buffer in Glibc.read(fd, buffer.baseAddress, buffer.count) }
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            close()
            return
        }
        if count == 0 {
            close()  // the client left (in lingering: it read the answer and closed; done)
            return
        }
        switch phase {
        case .lingering:
            discarded += count
            if discarded > Self.lingerDiscardLimit { close() }
            return
        case .awaitingHead where unconsumed == 0:
            deadline = EventLoop.monotonicNanoseconds() &+ core.configuration.headerTimeout.nanoseconds
        default:
            break
        }
        worker.withReadBuffer { buffer in
            input.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        process()
    }

    /// Most bytes read and dropped while lingering before the connection is simply closed.
    private static let lingerDiscardLimit = 1 << 20

    /// Frames what the buffer holds: a head, then its body; dispatches a complete request. Not re-entered: an
    /// answer written at once (an immediate handler's) leaves the next pipelined request to this loop, so a
    /// client's pipeline cannot deepen the stack.
    private func process() {
        guard !processing else { return }
        processing = true
        defer { processing = false }
        while true {
            switch phase {
            case .awaitingHead:
                guard unconsumed > 0 else { return }
                let outcome = input.withUnsafeBufferPointer { all in
                    parser.parse(UnsafeBufferPointer(rebasing: all[inputStart...]))
                }
                switch outcome {
                case .incomplete: return
                case .rejected(let rejection):
                    reject(rejection)
                    return
                case .complete(let parsed, let length):
                    consume(length)
                    parser.reset()
                    startedAt = .now
                    startBody(of: parsed)
                }
            case .readingBody:
                guard unconsumed > 0 else { return }
                readBody()
            default:
                return
            }
        }
    }

    private func startBody(of parsed: RequestHead) {
        head = parsed
        switch parsed.framing {
        case .none:
            dispatch(body: [])
            return
        case .length(let length):
            bodyRemaining = length
            body = []
            body.reserveCapacity(length)
        case .chunked:
            chunked = ChunkedBodyDecoder(maxBodyBytes: core.configuration.maxBodyBytes)
        }
        phase = .readingBody
        deadline = EventLoop.monotonicNanoseconds() &+ core.configuration.bodyTimeout.nanoseconds
        if parsed.expectsContinue, unconsumed == 0 { enqueue(ResponseEncoder.continueInterim) }
    }

    private func readBody() {
        if var decoder = chunked {
            let progress = input.withUnsafeBufferPointer { all in
                decoder.feed(UnsafeBufferPointer(rebasing: all[inputStart...]))
            }
            switch progress {
            case .needMore:
                consume(unconsumed)
                chunked = decoder
            case .finished(let consumed):
                consume(consumed)
                chunked = nil
                dispatch(body: decoder.takeBody())
            case .rejected(let rejection):
                chunked = nil
                reject(rejection)
            }
            return
        }
        let take = min(bodyRemaining, unconsumed)
        body.append(contentsOf: input[inputStart..<(inputStart + take)])
        consume(take)
        bodyRemaining -= take
        if bodyRemaining == 0 {
            let complete = body
            body = []
            dispatch(body: complete)
        }
    }

    private func consume(_ count: Int) {
        inputStart += count
        if inputStart == input.count {
            input.removeAll(keepingCapacity: input.capacity <= 64 * 1024)
            inputStart = 0
        } else if inputStart > 32 * 1024 {
            input.removeFirst(inputStart)
            inputStart = 0
        }
    }

    // MARK: - Answering

    /// Hands the request to the router on the task pool; reading pauses until the answer is written.
    private func dispatch(body: [UInt8]) {
        guard let head else { return }
        self.head = nil
        phase = .handling
        deadline = .max
        var request = HTTPRequest(method: HTTPMethod(rawValue: head.method), path: head.target, body: body)
        request.headers = head.headerDictionary
        let routed = core.router.route(request)
        current = Current(
            method: head.method, path: request.path, route: routed.request.route, isHead: head.isHead, keepAlive: head.keepAlive)
        guard core.admitting.load(ordering: .acquiring) else {
            answer(HTTPError.unavailable("server is shutting down").response)
            return
        }
        // An answer at hand (a cached body) is written from this thread: no hop to the task pool and back.
        if let response = core.router.respondImmediately(to: routed) {
            answer(response)
            return
        }
        guard core.admit() else {
            answer(HTTPError.unavailable("server is shutting down").response)
            return
        }
        setInterest(read: false, write: writeInterest)
        generation &+= 1
        let token = generation
        let core = self.core
        let loop = worker.loop
        Task.detached { [self] in
            let response = await core.router.respond(to: routed, logger: core.logger)
            loop.execute { self.complete(token, response) }
            core.inFlight.update { $0 -= 1 }
        }
    }

    private func complete(_ token: Int, _ response: HTTPResponse) {
        guard case .handling = phase, token == generation else { return }
        answer(response)
    }

    /// Answers the running request with `response` now (the stop's 503); the handler's later answer is dropped.
    func answerEarly(_ response: HTTPResponse) {
        guard case .handling = phase else { return }
        generation &+= 1
        answer(response)
    }

    private func answer(_ response: HTTPResponse) {
        guard let current else { return }
        self.current = nil
        let close = !current.keepAlive || core.stopping.load(ordering: .relaxed)
        core.metrics.record(
            method: current.method, route: current.route, status: response.status, duration: .now - startedAt)
        let bytes = ResponseEncoder.encode(response, isHead: current.isHead, close: close, date: worker.dateBytes())
        phase = .writing(close: close)
        deadline = EventLoop.monotonicNanoseconds() &+ core.configuration.connectionTimeout.nanoseconds
        enqueue(bytes)
    }

    /// Answers a request the framing rules refused, then closes.
    private func reject(_ rejection: HTTPRejection) {
        core.refused(rejection, method: head?.method, path: head.map { HTTPRequest.splitTarget($0.target).path })
        head = nil
        chunked = nil
        body = []
        let bytes = ResponseEncoder.encode(rejection.response, isHead: false, close: true, date: worker.dateBytes())
        phase = .writing(close: true)
        deadline = EventLoop.monotonicNanoseconds() &+ core.configuration.connectionTimeout.nanoseconds
        setInterest(read: false, write: writeInterest)
        enqueue(bytes)
    }

    // MARK: - Writing

    private func enqueue(_ bytes: [UInt8]) {
        if output.isEmpty {
            output = bytes
        } else {
            output += bytes
        }
        flush()
    }

    private func flush() {
        guard !isClosed else { return }
        while outputStart < output.count {
            let written = output.withUnsafeBytes { all in
                send(fd, all.baseAddress! + outputStart, all.count - outputStart, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                outputStart += written
            } else if written < 0, errno == EAGAIN || errno == EINTR {
                // An answer waiting for the client to read stops the reading of further requests (an immediate
                // answer left reading on), so a client that pipelines without reading cannot grow the input.
                if case .writing = phase {
                    setInterest(read: false, write: true)
                } else if !writeInterest {
                    setInterest(read: readInterest, write: true)
                }
                return
            } else {
                close()
                return
            }
        }
        output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
        outputStart = 0
        if writeInterest { setInterest(read: readInterest, write: false) }
        if case .writing(let close) = phase {
            close ? linger() : awaitNextRequest()
        }
    }

    private func awaitNextRequest() {
        phase = .awaitingHead
        let wait = unconsumed > 0 ? core.configuration.headerTimeout : core.configuration.connectionTimeout
        deadline = EventLoop.monotonicNanoseconds() &+ wait.nanoseconds
        setInterest(read: true, write: false)
        process()
    }

    /// Half-closes and reads (dropping) what the client still sends, so the answer is not lost to a reset.
    private func linger() {
        phase = .lingering
        shutdown(fd, Int32(SHUT_WR))
        input.removeAll()
        inputStart = 0
        deadline = EventLoop.monotonicNanoseconds() &+ 2_000_000_000
        setInterest(read: true, write: false)
    }

    // MARK: - Deadlines and closing

    /// Called by the thread's sweep: acts on a passed deadline.
    func checkDeadline(now: UInt64) {
        guard now >= deadline else { return }
        switch phase {
        case .awaitingHead where unconsumed > 0:
            reject(HTTPRejection(.headerTimeout, "request head not received within \(core.configuration.headerTimeout)"))
        case .readingBody:
            reject(HTTPRejection(.bodyTimeout, "request body not received within \(core.configuration.bodyTimeout)"))
        case .handling:
            return
        default:
            close()
        }
    }

    private func setInterest(read: Bool, write: Bool) {
        guard read != readInterest || write != writeInterest, !isClosed else { return }
        readInterest = read
        writeInterest = write
        worker.loop.setInterest(fd, readable: read, writable: write)
    }

    private var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    /// Closes the connection (idempotent); a running handler's answer is then dropped.
    func close() {
        guard !isClosed else { return }
        phase = .closed
        worker.remove(self)
    }
}
