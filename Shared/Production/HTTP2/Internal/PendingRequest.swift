/// A request waiting for, or holding, a stream. Completed exactly once. Loop-confined.
final class PendingRequest {
    let request: HTTP2Request
    private let continuation: CheckedContinuation<HTTP2Response, any Error>
    let deadline: UInt64
    var requeues = 0
    private(set) var completed = false
    // Response being received on the current stream (reset when re-queued).
    var status = 0
    var responseHeaders: [HTTP2Header] = []
    var responseBody: [UInt8] = []
    var bodyOffset = 0

    /// Clears per-stream progress before the request goes out again.
    func resetStream() {
        status = 0
        responseHeaders.removeAll()
        responseBody.removeAll()
        bodyOffset = 0
    }

    init(request: HTTP2Request, continuation: CheckedContinuation<HTTP2Response, any Error>, deadline: UInt64) {
        self.request = request
        self.continuation = continuation
        self.deadline = deadline
    }

    func succeed(_ response: HTTP2Response) {
        guard !completed else { return }
        completed = true
        continuation.resume(returning: response)
    }

    func fail(_ error: HTTP2Error) {
        guard !completed else { return }
        completed = true
        continuation.resume(throwing: error)
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
