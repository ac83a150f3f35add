/// Why an HTTP/2 request or connection failed.
public enum HTTP2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// TCP connect, TLS handshake or ALPN failed (the request was never sent).
    case connectFailed(host: String, port: Int, message: String)
    /// The connection broke while the request was in flight: it may or may not have been processed.
    case connectionLost(message: String)
    /// The server refused the stream (GOAWAY above its last-stream-id, or RST_STREAM REFUSED_STREAM)
    /// more times than the client re-queues; it was certainly not processed.
    case refused(attempts: Int)
    /// The server reset the stream with this HTTP/2 error code.
    case streamReset(code: UInt32)
    /// No complete response within the configured request timeout.
    case timeout(seconds: Double)
    /// nghttp2 rejected the request (e.g. invalid header) with this library error.
    case protocolError(code: Int32, message: String)
    /// The client was shut down.
    case shutdown
    /// TLS set-up failed (certificate or key files, CA file).
    case tls(message: String)
    /// A listening socket could not be opened.
    case bindFailed(host: String, port: Int, message: String)
    /// The response body was larger than the client takes (`HTTP2ClientConfiguration.maxResponseBodyBytes`).
    case responseTooLarge(limit: Int)

    /// True when sending the same request again (on a fresh connection) is the right move.
    public var isRetryable: Bool {
        switch self {
        case .connectFailed, .connectionLost, .refused, .timeout: true
        case .streamReset(let code): code == 7 /* REFUSED_STREAM */ || code == 0 /* NO_ERROR */ || code == 2 /* INTERNAL */
        case .protocolError, .shutdown, .tls, .bindFailed, .responseTooLarge: false
        }
    }

    public var description: String {
        switch self {
        case .connectFailed(let host, let port, let message): "connect to \(host):\(port) failed: \(message)"
        case .connectionLost(let message): "connection lost: \(message)"
        case .refused(let attempts): "stream refused by the server \(attempts) times"
        case .streamReset(let code): "stream reset by the server with code \(code)"
        case .timeout(let seconds): "no response within \(seconds) s"
        case .protocolError(let code, let message): "nghttp2 error \(code): \(message)"
        case .shutdown: "client shut down"
        case .tls(let message): "TLS: \(message)"
        case .bindFailed(let host, let port, let message): "listen on \(host):\(port) failed: \(message)"
        case .responseTooLarge(let limit): "response body larger than \(limit) bytes"
        }
    }
}
