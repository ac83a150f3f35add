/// Writes an `HTTPResponse` as HTTP/1.1 bytes: status line, the handler's headers (minus the framing ones,
/// which the server owns, and any with CR or LF), `Date`, `X-Content-Type-Options: nosniff`,
/// `Content-Length`, `Connection: close` when the connection ends; no body for HEAD, 1xx, 204 and 304.
enum ResponseEncoder {
    /// Headers a handler may not set: the server frames every answer itself.
    private static let serverOwned: Set<String> = ["content-length", "transfer-encoding", "connection", "date", "keep-alive"]

    static func encode(_ response: HTTPResponse, isHead: Bool, close: Bool, date: [UInt8]) -> [UInt8] {
        let status = (100...999).contains(response.status) ? response.status : 500
        let bodyAllowed = !(status < 200 || status == 204 || status == 304)
        var out: [UInt8] = []
        out.reserveCapacity(160 + response.body.count)
        out += Array("HTTP/1.1 \(status) \(reasonPhrase(status))\r\n".utf8)
        for header in response.headers {
            let name = header.name.lowercased()
            guard !serverOwned.contains(name), !name.isEmpty, name.utf8.allSatisfy(\.isTokenCharacter),
                header.value.utf8.allSatisfy({ $0 != .cr && $0 != .lf && $0 != 0 })
            else { continue }
            out += Array(header.name.utf8)
            out += [.colon, .space]
            out += Array(header.value.utf8)
            out += [.cr, .lf]
        }
        out += Array("Date: ".utf8)
        out += date
        out += Array("\r\nX-Content-Type-Options: nosniff\r\n".utf8)
        if bodyAllowed { out += Array("Content-Length: \(response.body.count)\r\n".utf8) }
        if close { out += Array("Connection: close\r\n".utf8) }
        out += [.cr, .lf]
        if bodyAllowed, !isHead { out += response.body }
        return out
    }

    /// The interim answer to `Expect: 100-continue`.
    static let continueInterim = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}
