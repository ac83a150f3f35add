import Reactor
import Runtime

/// An HTTP/2-over-TLS client for one host: a pool of connections multiplexing many streams each,
/// run by nghttp2 and OpenSSL on one dedicated event-loop thread (never the cooperative pool).
///
/// Requests beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS wait in a queue. Requests the
/// server provably did not process (above a GOAWAY's last-stream-id, or reset with REFUSED_STREAM)
/// are re-sent automatically on another connection, up to `maxRequeues` times.
public final class HTTP2Client: Sendable {
    public let configuration: HTTP2ClientConfiguration
    /// Connection and stream counters.
    public let statistics: HTTP2ClientStatistics
    private let loop: EventLoop
    private let pool: LoopBound<ClientPool>

    /// Creates the client and starts its event-loop thread; connections open on the first request.
    /// - Throws: `HTTP2Error.tls` when the CA file cannot be loaded.
    public init(configuration: HTTP2ClientConfiguration, logger: Logger = Logger(label: "http2.client")) throws {
        self.configuration = configuration
        let tls = try TLSContext.client(caFile: configuration.caFile, verify: configuration.verifyCertificate)
        let loop = try EventLoop(name: "h2-client-\(configuration.host):\(configuration.port)")
        let statistics = HTTP2ClientStatistics()
        self.statistics = statistics
        self.loop = loop
        self.pool = LoopBound(ClientPool(configuration: configuration, loop: loop, tls: tls, statistics: statistics, logger: logger))
        loop.start()
    }

    deinit {
        let pool = self.pool
        loop.execute { pool.value.shutdown() }
        loop.stop()
    }

    /// Sends one request and waits for the complete response.
    /// - Throws: `HTTP2Error` (check `isRetryable`).
    public func send(_ request: HTTP2Request) async throws -> HTTP2Response {
        let pool = self.pool
        return try await withCheckedThrowingContinuation { continuation in
            loop.execute { pool.value.enqueue(request, continuation) }
        }
    }

    /// Sends every request at once (one hop to the event loop for all of them) and waits until each has an
    /// answer or an error. Results are in request order; a batch costs one suspension, not one per request,
    /// which is what a sender of thousands of pushes per job needs.
    ///
    /// With `progress`, the answers are also reported as they come, in groups (see `HTTP2BatchProgress`).
    public func send(_ requests: [HTTP2Request], progress: HTTP2BatchProgress? = nil) async -> [HTTP2BatchResult] {
        guard !requests.isEmpty else { return [] }
        let pool = self.pool
        return await withCheckedContinuation { continuation in
            loop.execute { pool.value.enqueue(requests, continuation, progress: progress) }
        }
    }

    /// Fails the queued requests, and every later one, with `HTTP2Error.shutdown`, and closes every connection:
    /// a request in flight on one fails with `.connectionLost`. Returns at once (the work runs on the loop
    /// thread). The loop thread itself keeps running until the client is released: `deinit` stops it.
    public func shutdown() {
        let pool = self.pool
        loop.execute { pool.value.shutdown() }
    }
}

/// A loop-confined object carried across threads only to be used on its loop.
/// Thread safety (`@unchecked Sendable`): `value` is only touched inside tasks run by its EventLoop.
package struct LoopBound<Value: AnyObject>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
