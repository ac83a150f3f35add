/// RFC 9112 §6 and §9 on a parsed head: Host, body framing, `Expect`, persistence. Decides once, before
/// any handler runs, how long the body is and whether the connection lives on.
enum RequestFraming {
    /// Fills `head.framing`, `keepAlive` and `expectsContinue`, or says which rule the head breaks.
    static func apply(to head: inout RequestHead, maxBodyBytes: Int) -> Result<Void, HTTPRejection> {
        var hosts = 0
        var lengths: [String] = []
        var codings: [String] = []
        var sawTransferEncoding = false
        var connection: [String] = []
        var expectations: [String] = []
        for (name, value) in head.fields {
            switch name {
            case "host": hosts += 1
            case "content-length": lengths.append(contentsOf: listElements(value, lowercase: false))
            case "transfer-encoding":
                sawTransferEncoding = true
                codings.append(contentsOf: listElements(value, lowercase: true))
            case "connection": connection.append(contentsOf: listElements(value, lowercase: true))
            case "expect": expectations.append(value.lowercased())
            default: break
            }
        }
        if head.minorVersion >= 1 ? hosts != 1 : hosts > 1 {
            return .failure(HTTPRejection(.invalidHost, "HTTP/1.\(head.minorVersion) needs exactly one Host header; got \(hosts)"))
        }
        if sawTransferEncoding {
            guard head.minorVersion >= 1 else {
                return .failure(HTTPRejection(.transferEncodingOnHTTP10, "Transfer-Encoding is not defined for HTTP/1.0"))
            }
            guard lengths.isEmpty else {
                return .failure(HTTPRejection(
                    .transferEncodingWithContentLength, "Transfer-Encoding and Content-Length together are refused"))
            }
            guard codings == ["chunked"] else {
                let list = codings.joined(separator: ", ")
                return .failure(HTTPRejection(
                    .unsupportedTransferEncoding, "Transfer-Encoding \(HTTPRejection.quote(list.utf8)): only chunked is served"))
            }
            head.framing = .chunked
        } else if !lengths.isEmpty {
            switch contentLength(lengths, maxBodyBytes: maxBodyBytes) {
            case .failure(let rejection): return .failure(rejection)
            case .success(let length): head.framing = length == 0 ? .none : .length(length)
            }
        }
        if !expectations.isEmpty {
            guard expectations == ["100-continue"] else {
                return .failure(HTTPRejection(.unsupportedExpectation, "only Expect: 100-continue is served"))
            }
            head.expectsContinue = head.framing != .none
        }
        if connection.contains("close") {
            head.keepAlive = false
        } else if head.minorVersion == 0 {
            head.keepAlive = connection.contains("keep-alive")
        }
        return .success(())
    }

    /// The one length all `Content-Length` values name (RFC 9112 §6.3 item 5), checked against the limit
    /// without overflowing on any number of digits.
    static func contentLength(_ values: [String], maxBodyBytes: Int) -> Result<Int, HTTPRejection> {
        var agreed: Substring?
        for value in values {
            guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                return .failure(HTTPRejection(.invalidContentLength, "Content-Length \(HTTPRejection.quote(value.utf8)) is not a decimal number"))
            }
            let significant = value.drop { $0 == "0" }
            if let agreed, agreed != significant {
                return .failure(HTTPRejection(.conflictingContentLength, "Content-Length values differ: \(values.joined(separator: ", ").prefix(60))"))
            }
            agreed = significant
        }
        let digits = agreed ?? ""
        guard digits.utf8.count <= 18, let length = digits.isEmpty ? 0 : Int(digits), length <= maxBodyBytes else {
            return .failure(HTTPRejection(.payloadTooLarge, "request body larger than \(maxBodyBytes) bytes"))
        }
        return .success(length)
    }

    /// The elements of a comma-separated field value (RFC 9110 §5.6.1), trimmed; empty elements dropped,
    /// except that an all-empty `Content-Length` keeps one empty element so it is refused.
    private static func listElements(_ value: String, lowercase: Bool) -> [String] {
        let elements = value.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingHTTPWhitespace()
        }
        let kept = elements.filter { !$0.isEmpty }
        let chosen = kept.isEmpty ? [""] : kept
        return chosen.map { lowercase ? $0.lowercased() : $0 }
    }
}

extension Substring {
    /// Without leading and trailing SP and HTAB.
    func trimmingHTTPWhitespace() -> String {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
