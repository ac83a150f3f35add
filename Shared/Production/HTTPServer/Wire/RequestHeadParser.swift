/// The limits a request head is held to.
struct RequestHeadLimits: Sendable {
    /// Largest head (request line and fields) in bytes; more is answered 431.
    var maxHeadBytes = 16 * 1024
    /// Most header fields; more is answered 431.
    var maxFieldCount = 100
    /// Longest request target; longer is answered 414.
    var maxTargetBytes = 8 * 1024
    /// Largest body announced by `Content-Length`; larger is answered 413 before it is read.
    var maxBodyBytes: Int
}

/// Finds and parses the request head at the start of a connection's buffer, strictly by RFC 9112: one
/// framing rule applied before any handler runs.
///
/// Lines end with CRLF only (a bare LF is refused at once, not waited on); a field line starting with
/// whitespace (obs-fold), whitespace before the colon, or control bytes in a value are refused; HTTP/1.1
/// needs exactly one `Host`; `Content-Length` must be plain digits, all values identical;
/// `Transfer-Encoding` must be exactly `chunked`, never with `Content-Length` nor on HTTP/1.0.
///
/// Incremental: a head that arrives in pieces is scanned once (`scanned` remembers how far), so a client
/// dribbling bytes costs linear time.
struct RequestHeadParser {
    /// What the buffer holds.
    enum Outcome {
        /// Not a whole head yet, and nothing wrong so far.
        case incomplete
        /// A valid head of `length` bytes (leading empty lines included).
        case complete(RequestHead, length: Int)
        /// A head that breaks a rule; answer it and close.
        case rejected(HTTPRejection)
    }

    let limits: RequestHeadLimits
    /// Bytes already scanned for the end of the head.
    private var scanned = 0

    init(limits: RequestHeadLimits) {
        self.limits = limits
    }

    /// Forgets the scan position; call after the head was consumed from the buffer.
    mutating func reset() { scanned = 0 }

    /// Looks for a complete head at the start of `bytes`.
    mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Outcome {
        // RFC 9112 §2.2: empty lines before the request line are ignored.
        var start = 0
        while start + 1 < bytes.count, bytes[start] == .cr, bytes[start + 1] == .lf { start += 2 }
        var index = max(scanned, start)
        var sawLineEnd = false
        while index < bytes.count {
            if bytes[index] == .lf {
                guard index > start, bytes[index - 1] == .cr else {
                    return .rejected(HTTPRejection(.malformedHeader, "a line ends with a bare LF; lines end with CRLF"))
                }
                sawLineEnd = true
                if index >= start + 3, bytes[index - 2] == .lf, bytes[index - 3] == .cr {
                    let length = index + 1
                    guard length - start <= limits.maxHeadBytes else { return tooLarge(length - start) }
                    return parseHead(UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)]), length: length)
                }
            }
            index += 1
        }
        scanned = bytes.count
        if !sawLineEnd, !bytes[start...].contains(.lf), bytes.count - start > limits.maxTargetBytes + 64 {
            return .rejected(HTTPRejection(.targetTooLong, "request line longer than \(limits.maxTargetBytes + 64) bytes"))
        }
        if bytes.count - start > limits.maxHeadBytes { return tooLarge(bytes.count - start) }
        return .incomplete
    }

    private func tooLarge(_ length: Int) -> Outcome {
        .rejected(HTTPRejection(.headersTooLarge, "request head over \(limits.maxHeadBytes) bytes (\(length) so far)"))
    }

    /// Parses a head whose lines are CRLF-terminated; `head` excludes the final empty line's CRLF.
    private func parseHead(_ head: UnsafeBufferPointer<UInt8>, length: Int) -> Outcome {
        var lines = CRLFLines(head)
        guard let requestLine = lines.next() else {
            return .rejected(HTTPRejection(.malformedRequestLine, "empty request line"))
        }
        var parsed: RequestHead
        switch RequestLineParser.parse(requestLine, maxTargetBytes: limits.maxTargetBytes) {
        case .failure(let rejection): return .rejected(rejection)
        case .success(let line):
            parsed = RequestHead(
                method: line.method, target: line.target, minorVersion: line.minorVersion, fields: [],
                framing: .none, keepAlive: line.minorVersion >= 1, expectsContinue: false)
        }
        while let line = lines.next() {
            guard parsed.fields.count < limits.maxFieldCount else {
                return .rejected(HTTPRejection(.headersTooLarge, "more than \(limits.maxFieldCount) header fields"))
            }
            switch FieldLineParser.parse(line) {
            case .failure(let rejection): return .rejected(rejection)
            case .success(let field): parsed.fields.append(field)
            }
        }
        switch RequestFraming.apply(to: &parsed, maxBodyBytes: limits.maxBodyBytes) {
        case .failure(let rejection): return .rejected(rejection)
        case .success: return .complete(parsed, length: length)
        }
    }
}

/// The CRLF-separated lines of a head (without their CRLF).
struct CRLFLines: IteratorProtocol {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func next() -> UnsafeBufferPointer<UInt8>? {
        guard position < bytes.count else { return nil }
        var end = position
        // Only CR LF ends a line: a lone CR stays in the line, where the field checks refuse it.
        while end < bytes.count, !(bytes[end] == .cr && end + 1 < bytes.count && bytes[end + 1] == .lf) { end += 1 }
        let line = UnsafeBufferPointer(rebasing: bytes[position..<end])
        position = end + 2
        return line
    }
}

extension UInt8 {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")

    /// RFC 9110 §5.6.2 `tchar`.
    var isTokenCharacter: Bool { HTTPByteClass.token[Int(self)] }
    /// A byte allowed in a field value (RFC 9110 §5.5): HTAB, visible ASCII, SP, obs-text.
    var isFieldValueCharacter: Bool { self == .tab || (self >= 0x20 && self != 0x7F) }
}

/// Byte classes of RFC 9110 as lookup tables.
enum HTTPByteClass {
    static let token: [Bool] = (0..<256).map { value in
        let byte = UInt8(value)
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
