import Reactor

/// A request waiting for, or holding, a stream. Completed exactly once. Loop-confined.
final class PendingRequest {
    /// Who waits for the answer: one caller's continuation, or one slot of a batch.
    enum Waiter {
        case single(CheckedContinuation<HTTP2Response, any Error>)
        case batch(BatchCollector, index: Int)
    }

    let request: HTTP2Request
    private let waiter: Waiter
    let deadline: UInt64
    var requeues = 0
    private(set) var completed = false
    // Response being received on the current stream (reset when re-queued).
    var status = 0
    var responseHeaders: [HTTP2Header] = []
    var responseBody: [UInt8] = []
    /// The response body went past the client's limit (its bytes are dropped; the request fails at the stream's end).
    var responseTooLarge = false
    var bodyOffset = 0

    /// Clears per-stream progress before the request goes out again.
    func resetStream() {
        status = 0
        responseHeaders.removeAll()
        responseBody.removeAll()
        responseTooLarge = false
        bodyOffset = 0
    }

    init(request: HTTP2Request, waiter: Waiter, deadline: UInt64) {
        self.request = request
        self.waiter = waiter
        self.deadline = deadline
    }

    func succeed(_ response: HTTP2Response) {
        guard !completed else { return }
        completed = true
        switch waiter {
        case .single(let continuation): continuation.resume(returning: response)
        case .batch(let collector, let index): collector.complete(index, .success(response))
        }
    }

    func fail(_ error: HTTP2Error) {
        guard !completed else { return }
        completed = true
        switch waiter {
        case .single(let continuation): continuation.resume(throwing: error)
        case .batch(let collector, let index): collector.complete(index, .failure(error))
        }
    }
}

/// The answers of one `HTTP2Client.send(_:)` batch, collected on the loop thread; resumes its caller
/// once, when the last request has its answer. Loop-confined.
final class BatchCollector {
    private var results: [HTTP2BatchResult?]
    private var remaining: Int
    private let startedAt: UInt64
    private let continuation: CheckedContinuation<[HTTP2BatchResult], Never>
    private let progress: HTTP2BatchProgress?
    /// Answered since the last progress report, by index.
    private var unreported: [(Int, HTTP2BatchResult)] = []

    init(count: Int, continuation: CheckedContinuation<[HTTP2BatchResult], Never>, progress: HTTP2BatchProgress? = nil) {
        self.results = [HTTP2BatchResult?](repeating: nil, count: count)
        self.remaining = count
        self.startedAt = EventLoop.monotonicNanoseconds()
        self.continuation = continuation
        self.progress = progress
    }

    func complete(_ index: Int, _ result: Result<HTTP2Response, HTTP2Error>) {
        guard results[index] == nil else { return }
        let elapsed = EventLoop.monotonicNanoseconds() &- startedAt
        let answer = HTTP2BatchResult(result: result, elapsed: .nanoseconds(Int64(clamping: elapsed)))
        results[index] = answer
        remaining -= 1
        if let progress {
            unreported.append((index, answer))
            if unreported.count >= progress.every || remaining == 0 {
                progress.report(unreported)
                unreported.removeAll(keepingCapacity: true)
            }
        }
        if remaining == 0 { continuation.resume(returning: results.map { $0! }) }
    }
}

/// A first-in first-out queue with cheap removal at the front and re-insertion at the front.
struct FIFO<Element> {
    private var storage: [Element?] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { head >= storage.count }
    var first: Element? { isEmpty ? nil : storage[head] }

    mutating func append(_ element: Element) { storage.append(element) }

    mutating func prepend(_ element: Element) {
        if head > 0 {
            head -= 1
            storage[head] = element
        } else {
            storage.insert(element, at: 0)
        }
    }

    mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        storage[head] = nil
        head += 1
        if head > 4096 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }

    mutating func removeAll() -> [Element] {
        let all = storage[head...].compactMap { $0 }
        storage.removeAll()
        head = 0
        return all
    }
}
