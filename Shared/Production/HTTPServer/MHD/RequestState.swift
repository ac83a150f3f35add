import CMicroHTTPD
import Synchronization
import Runtime

/// The `MHD_Connection` of a suspended request.
///
/// `@unchecked Sendable`: the pointer is only used for `MHD_resume_connection`, which libmicrohttpd allows
/// from any thread, and only while the request is suspended and the daemon is running (guaranteed by
/// `ServerCore`'s gate lock).
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Per-request state behind libmicrohttpd's `con_cls`: created by the URI-log callback, retained by the
/// connection until `MHD_OPTION_NOTIFY_COMPLETED`, and by the handler task while it runs.
final class RequestState: Sendable {
    /// Where the request is in its life.
    enum Phase: Sendable {
        /// Headers and body are being received.
        case receiving
        /// Suspended while the Swift handler runs.
        case running(ConnectionHandle)
        /// The handler finished (or shutdown answered for it); waiting to be queued.
        case responded(HTTPResponse)
        /// A response was queued with libmicrohttpd.
        case queued
    }

    private struct Inner {
        var phase = Phase.receiving
        var started = false
        var body: [UInt8] = []
        var received = 0
        var tooLarge = false
        var method = ""
        var route: String?
        var status: Int?
    }

    /// Request target as sent (`/path?query`), still percent-encoded.
    let target: String
    /// When the request line arrived.
    let startedAt = ContinuousClock.now
    private let inner = LockedValue(Inner())

    init(target: String) {
        self.target = target
    }

    /// Marks the first access-handler call; returns true only the first time.
    func begin(method: String) -> Bool {
        inner.withLock { inner in
            guard !inner.started else { return false }
            inner.started = true
            inner.method = method
            return true
        }
    }

    /// Appends an upload chunk while the body fits `limit`; past it, marks the request too large, frees
    /// the buffer and only counts bytes. Returns the total bytes received so far.
    func append(_ chunk: UnsafeRawBufferPointer, limit: Int) -> Int {
        inner.withLock { inner in
            inner.received += chunk.count
            if !inner.tooLarge, inner.received <= limit {
                inner.body.append(contentsOf: chunk)
            } else {
                inner.tooLarge = true
                inner.body = []
            }
            return inner.received
        }
    }

    /// Whether the body went over the limit.
    var isTooLarge: Bool { inner.withLock { $0.tooLarge } }

    /// The phase, for the access handler.
    var phase: Phase { inner.withLock { $0.phase } }

    /// Takes the received body (leaving it empty).
    func takeBody() -> [UInt8] {
        inner.withLock { inner in
            defer { inner.body = [] }
            return inner.body
        }
    }

    /// Sets `.running`; call with the connection suspended under the gate lock.
    func markRunning(_ connection: ConnectionHandle, route: String?) {
        inner.withLock { inner in
            inner.phase = .running(connection)
            inner.route = route
        }
    }

    /// Stores the handler's answer if the request is still running; returns its connection to resume,
    /// or nil when it was already answered (e.g. by shutdown).
    func finish(_ response: HTTPResponse) -> ConnectionHandle? {
        inner.withLock { inner in
            guard case .running(let connection) = inner.phase else { return nil }
            inner.phase = .responded(response)
            return connection
        }
    }

    /// Records that a response with `status` was queued.
    func markQueued(status: Int, route: String?) {
        inner.withLock { inner in
            inner.phase = .queued
            inner.status = status
            if route != nil { inner.route = route }
        }
    }

    /// Method, matched route and answered status, for metrics and logs.
    var summary: (method: String, route: String?, status: Int?, started: Bool) {
        inner.withLock { ($0.method, $0.route, $0.status, $0.started) }
    }
}
