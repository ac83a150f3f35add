/// A request's head as read off the wire and checked against RFC 9112: what the connection needs to frame
/// the body and answer, and what the handler sees.
struct RequestHead: Sendable {
    /// How the body is delimited (RFC 9112 §6.3).
    enum BodyFraming: Sendable, Equatable {
        /// No body.
        case none
        /// Exactly this many bytes (already checked against `maxBodyBytes`).
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
    }

    /// The method token as sent, e.g. `POST`.
    var method: String
    /// The origin-form target as sent, e.g. `/matches/42?q=1` (still percent-encoded).
    var target: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1 (and later 1.x minors, which are answered as 1.1).
    var minorVersion: Int
    /// Header fields in order; names lower-cased, values trimmed of surrounding whitespace.
    var fields: [(name: String, value: String)]
    /// How the body is delimited.
    var framing: BodyFraming
    /// Whether the connection may serve another request after this one.
    var keepAlive: Bool
    /// Whether the client waits for `100 Continue` before sending the body.
    var expectsContinue: Bool

    /// Whether the answer must omit its body.
    var isHead: Bool { method == "HEAD" }

    /// The fields as the handler's dictionary: lower-cased names, repeated fields joined with `", "`.
    var headerDictionary: [String: String] {
        var headers: [String: String] = [:]
        headers.reserveCapacity(fields.count)
        for (name, value) in fields {
            if let existing = headers[name] {
                headers[name] = existing + ", " + value
            } else {
                headers[name] = value
            }
        }
        return headers
    }
}
