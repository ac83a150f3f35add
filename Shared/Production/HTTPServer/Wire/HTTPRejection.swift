import Runtime

/// Why the server answered a request itself, before any handler ran: RFC 9112 framing, limits and timeouts.
///
/// Every rejection is answered with its `status` and a JSON body `{"error": reason, "message": …}`, the
/// connection is closed (lingering, so the client reads the answer), the reason is counted in
/// `http_rejected_requests_total{reason}` and logged without any header value.
struct HTTPRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// The rule the request broke; its raw value is the `error` code and the metric label.
    enum Reason: String, CaseIterable, Sendable {
        /// The request line is not `method SP target SP HTTP-version CRLF`.
        case malformedRequestLine = "malformed_request_line"
        /// The target is longer than the limit (414).
        case targetTooLong = "uri_too_long"
        /// The target is not origin-form (`/path?query`) or holds bytes outside visible ASCII.
        case invalidTarget = "invalid_target"
        /// An HTTP major version other than 1 (505).
        case unsupportedVersion = "http_version_not_supported"
        /// A line ends with a bare LF, or a header line is not `token ":" OWS value OWS`.
        case malformedHeader = "malformed_header"
        /// A header line starts with whitespace (obs-fold, RFC 9112 §5.2).
        case obsoleteLineFolding = "obsolete_line_folding"
        /// The head is over the byte or header-count limit (431).
        case headersTooLarge = "headers_too_large"
        /// HTTP/1.1 without exactly one `Host` header.
        case invalidHost = "invalid_host"
        /// A `Content-Length` that is not a plain decimal number.
        case invalidContentLength = "invalid_content_length"
        /// Several `Content-Length` values that differ (RFC 9112 §6.3).
        case conflictingContentLength = "conflicting_content_length"
        /// Both `Transfer-Encoding` and `Content-Length` (RFC 9112 §6.1: a smuggling vector).
        case transferEncodingWithContentLength = "transfer_encoding_with_content_length"
        /// `Transfer-Encoding` on an HTTP/1.0 request (RFC 9112 §6.1).
        case transferEncodingOnHTTP10 = "transfer_encoding_on_http10"
        /// A transfer coding other than exactly `chunked` (501).
        case unsupportedTransferEncoding = "unsupported_transfer_encoding"
        /// A chunked body whose framing is broken.
        case malformedChunkedBody = "malformed_chunked_body"
        /// The body is larger than `maxBodyBytes` (413).
        case payloadTooLarge = "payload_too_large"
        /// An `Expect` other than `100-continue` (417).
        case unsupportedExpectation = "expectation_failed"
        /// The head did not arrive within `headerTimeout` (408).
        case headerTimeout = "header_timeout"
        /// The body did not arrive within `bodyTimeout` (408).
        case bodyTimeout = "body_timeout"
        /// The server is at `connectionLimit`; the connection was closed at once.
        case connectionLimit = "connection_limit"
    }

    /// The rule broken.
    let reason: Reason
    /// What was wrong, naming the failing input (printable ASCII, truncated; never a header value that
    /// could carry a credential).
    let detail: String

    init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// The status answered.
    var status: Int {
        switch reason {
        case .targetTooLong: 414
        case .unsupportedVersion: 505
        case .headersTooLarge: 431
        case .unsupportedTransferEncoding: 501
        case .payloadTooLarge: 413
        case .unsupportedExpectation: 417
        case .headerTimeout, .bodyTimeout: 408
        case .connectionLimit: 503
        default: 400
        }
    }

    /// The JSON error answer.
    var response: HTTPResponse {
        HTTPResponse.error(status: status, code: reason.rawValue, message: detail)
    }

    var description: String { "\(status) \(reason.rawValue): \(detail)" }

    /// `bytes` as printable ASCII for a detail: other bytes become `\xNN`, at most `limit` bytes shown.
    static func quote(_ bytes: some Collection<UInt8>, limit: Int = 40) -> String {
        var text: [UInt8] = [UInt8(ascii: "\"")]
        for byte in bytes.prefix(limit) {
            if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\"") {
                text.append(byte)
            } else {
                text += [UInt8(ascii: "\\"), UInt8(ascii: "x")]
                HexText.append(byte, to: &text)
            }
        }
        return String(decoding: text, as: UTF8.self) + (bytes.count > limit ? "…" : "") + "\""
    }
}
