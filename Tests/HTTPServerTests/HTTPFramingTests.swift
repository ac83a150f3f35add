import Foundation
import Runtime
import SharedTestSupport
import Testing

@testable import HTTPServer

/// RFC 9112 framing on the wire: every case sends raw bytes on its own connection and reads to the close,
/// so a doubled status line or a held connection shows.
@Suite(.timeLimit(.minutes(2)))
struct HTTPFramingTests {
    /// A request that must be refused with `status` and `code`, answered once, the connection closed.
    struct RefusedCase: CustomTestStringConvertible, Sendable {
        var name: String
        var request: String
        var status: Int
        var code: String
        var testDescription: String { name }
    }

    static let refused: [RefusedCase] = [
        RefusedCase(name: "two different Content-Length headers",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
            status: 400, code: "conflicting_content_length"),
        RefusedCase(name: "a Content-Length list that disagrees",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 7\r\n\r\nhello", status: 400,
            code: "conflicting_content_length"),
        RefusedCase(name: "Content-Length -1", request: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
            status: 400, code: "invalid_content_length"),
        RefusedCase(name: "Content-Length abc", request: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
            status: 400, code: "invalid_content_length"),
        RefusedCase(name: "Content-Length +5", request: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nhello",
            status: 400, code: "invalid_content_length"),
        RefusedCase(name: "Content-Length 2^66",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 73786976294838206464\r\n\r\n", status: 413,
            code: "payload_too_large"),
        RefusedCase(name: "Content-Length 2^63",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 9223372036854775808\r\n\r\n", status: 413,
            code: "payload_too_large"),
        RefusedCase(name: "Transfer-Encoding gzip, chunked",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", status: 501,
            code: "unsupported_transfer_encoding"),
        RefusedCase(name: "Transfer-Encoding identity with Content-Length",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\nContent-Length: 5\r\n\r\nhello",
            status: 400, code: "transfer_encoding_with_content_length"),
        RefusedCase(name: "Transfer-Encoding chunked with Content-Length",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            status: 400, code: "transfer_encoding_with_content_length"),
        RefusedCase(name: "Transfer-Encoding chunked twice",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            status: 501, code: "unsupported_transfer_encoding"),
        RefusedCase(name: "Transfer-Encoding on HTTP/1.0",
            request: "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400,
            code: "transfer_encoding_on_http10"),
        RefusedCase(name: "obs-fold", request: "GET /matches/1 HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", status: 400,
            code: "obsolete_line_folding"),
        RefusedCase(name: "whitespace before the colon",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length : 5\r\n\r\nhello", status: 400, code: "malformed_header"),
        RefusedCase(name: "bare LF line ends", request: "GET /matches/1 HTTP/1.1\nHost: x\n\n", status: 400, code: "malformed_header"),
        RefusedCase(name: "a lone CR in a value", request: "GET /matches/1 HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n",
            status: 400, code: "malformed_header"),
        RefusedCase(name: "a NUL in a value", request: "GET /matches/1 HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n",
            status: 400, code: "malformed_header"),
        RefusedCase(name: "no Host on HTTP/1.1", request: "GET /matches/1 HTTP/1.1\r\n\r\n", status: 400, code: "invalid_host"),
        RefusedCase(name: "two Host headers", request: "GET /matches/1 HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400,
            code: "invalid_host"),
        RefusedCase(name: "HTTP/2.0 on the HTTP/1 port", request: "GET /matches/1 HTTP/2.0\r\nHost: x\r\n\r\n", status: 505,
            code: "http_version_not_supported"),
        RefusedCase(name: "a version that is not HTTP/d.d", request: "GET /matches/1 HTTP/1.10\r\nHost: x\r\n\r\n", status: 400,
            code: "malformed_request_line"),
        RefusedCase(name: "two spaces in the request line", request: "GET  /matches/1 HTTP/1.1\r\nHost: x\r\n\r\n", status: 400,
            code: "malformed_request_line"),
        RefusedCase(name: "absolute-form target", request: "GET http://x/matches/1 HTTP/1.1\r\nHost: x\r\n\r\n", status: 400,
            code: "invalid_target"),
        RefusedCase(name: "non-ASCII in the target", request: "GET /matches/\u{e9} HTTP/1.1\r\nHost: x\r\n\r\n", status: 400,
            code: "invalid_target"),
        RefusedCase(name: "a target over 8 KB",
            request: "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: x\r\n\r\n", status: 414, code: "uri_too_long"),
        RefusedCase(name: "a head over 16 KB",
            request: "GET /matches/1 HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-Pad: " + String(repeating: "p", count: 1000) + "\r\n", count: 17)
                + "\r\n", status: 431, code: "headers_too_large"),
        RefusedCase(name: "more than 100 header fields",
            request: "GET /matches/1 HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-A: 1\r\n", count: 101) + "\r\n", status: 431,
            code: "headers_too_large"),
        RefusedCase(name: "Expect other than 100-continue",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}", status: 417,
            code: "expectation_failed"),
        RefusedCase(name: "a chunk size that is not hex",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", status: 400,
            code: "malformed_chunked_body"),
        RefusedCase(name: "chunk data longer than its size",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n", status: 400,
            code: "malformed_chunked_body"),
        RefusedCase(name: "a chunk size that overflows",
            request: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n", status: 413,
            code: "payload_too_large"),
    ]

    @Test(arguments: refused)
    func refusedOnceWithAReason(_ refusedCase: RefusedCase) async throws {
        let registry = MetricsRegistry()
        let server = try HTTPServerTests.startServer(metrics: registry)
        defer { server.stopInBackground() }
        let response = try await RawHTTPClient.raw(
            port: server.port, bytes: Array(refusedCase.request.utf8), readToEnd: true)
        #expect(response.status == refusedCase.status)
        #expect(response.headers["connection"] == "close")
        #expect(response.headers["x-content-type-options"] == "nosniff")
        let body = response.text
        // One answer: the body is exactly one JSON value (a second status line would not parse).
        let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        #expect(json?["error"] as? String == refusedCase.code)
        #expect((json?["message"] as? String)?.isEmpty == false)
        #expect(registry.render().contains(#"http_rejected_requests_total{reason="\#(refusedCase.code)"} 1"#))
    }

    @Test func everyRejectionReasonIsExportedAtZero() throws {
        let registry = MetricsRegistry()
        let server = try HTTPServerTests.startServer(metrics: registry)
        defer { server.stopInBackground() }
        let text = registry.render()
        for reason in HTTPRejection.Reason.allCases {
            #expect(text.contains(#"http_rejected_requests_total{reason="\#(reason.rawValue)"} 0"#))
        }
    }

    @Test func answersCarryDateAndNosniffAndHeadHasNoBody() async throws {
        let server = try HTTPServerTests.startServer()
        defer { server.stopInBackground() }
        let get = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/matches/live")
        #expect(get.headers["x-content-type-options"] == "nosniff")
        #expect(get.headers["date"]?.hasSuffix(" GMT") == true)
        let head = try await RawHTTPClient.raw(
            port: server.port, bytes: Array("HEAD /matches/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8),
            readToEnd: true)
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == get.headers["content-length"])
        #expect(head.body.isEmpty)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let server = try HTTPServerTests.startServer()
        defer { server.stopInBackground() }
        let three = (1...3).map { "GET /n/\($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined()
            + "GET /n/4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        let response = try await RawHTTPClient.raw(port: server.port, bytes: Array(three.utf8), readToEnd: true)
        let text = "HTTP/1.1 200 OK" + response.text  // the first head was parsed off
        let order = (1...4).compactMap { text.range(of: "answer-\($0)")?.lowerBound }
        #expect(order.count == 4)
        #expect(order == order.sorted())
    }

    @Test func aRequestSplitIntoSingleBytesIsServed() async throws {
        let server = try HTTPServerTests.startServer()
        defer { server.stopInBackground() }
        let request = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n"
            + "Content-Type: application/json\r\n\r\n5;ext=1\r\n{\"id\"\r\n12\r\n:7,\"name\":\"split\"}\r\n0\r\nX-Trailer: t\r\n\r\n"
        let pieces = Array(request.utf8).map { [$0] }
        let response = try await RawHTTPClient.raw(port: server.port, pieces: pieces, pause: .microseconds(200))
        #expect(response.status == 200)
        #expect(response.text.contains(#""name":"split""#))
    }

    @Test func expectContinueGetsAnInterimAnswer() async throws {
        let server = try HTTPServerTests.startServer()
        defer { server.stopInBackground() }
        let head = "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 22\r\nConnection: close\r\n"
            + "Content-Type: application/json\r\n\r\n"
        let response = try await RawHTTPClient.raw(
            port: server.port, pieces: [Array(head.utf8), Array(#"{"id":1,"name":"cont"}"#.utf8)], pause: .milliseconds(300),
            readToEnd: true)
        #expect(response.status == 100)
        #expect(response.text.contains("HTTP/1.1 200 OK"))
        #expect(response.text.contains(#""name":"cont""#))
    }

    @Test func aDribbledHeadIsAnswered408AtTheHeaderTimeout() async throws {
        let server = try Self.serverWithTimeouts()
        defer { server.stopInBackground() }
        let started = ContinuousClock.now
        // 40 pieces 100 ms apart: 4 s of dribbling against a 1 s header timeout.
        let pieces = Array("GET /matches/1 HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8).map { [$0] } + Array(repeating: [UInt8(ascii: "z")], count: 40)
        let response = try await RawHTTPClient.raw(port: server.port, pieces: pieces, pause: .milliseconds(100), readToEnd: true)
        #expect(response.status == 408)
        #expect(response.json["error"] as? String == "header_timeout")
        #expect(ContinuousClock.now - started < .seconds(9))
    }

    @Test func aSlowBodyIsAnswered408AtTheBodyTimeout() async throws {
        let server = try Self.serverWithTimeouts()
        defer { server.stopInBackground() }
        let head = Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{".utf8)
        let response = try await RawHTTPClient.raw(port: server.port, bytes: head, readToEnd: true)
        #expect(response.status == 408)
        #expect(response.json["error"] as? String == "body_timeout")
    }

    @Test func connectionsPastTheLimitAreClosedAndCounted() async throws {
        let registry = MetricsRegistry()
        var router = Router()
        router.get("/ok") { _ in .text("ok") }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threadCount: 1, headerTimeout: .seconds(5), connectionLimit: 1),
            router: router, logger: HTTPServerTests.quietLogger, metrics: registry)
        try server.start()
        defer { server.stopInBackground() }
        // The first connection holds the only slot with an unfinished head; the second is closed at once.
        async let holder = RawHTTPClient.raw(
            port: server.port, pieces: [Array("GET /ok HTTP/1.1\r\n".utf8), Array("Host: x\r\nConnection: close\r\n\r\n".utf8)],
            pause: .seconds(1))
        let deadline = ContinuousClock.now + .seconds(20)
        while !registry.render().contains("http_open_connections 1"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(registry.render().contains("http_open_connections 1"))
        await #expect(throws: ClientError.self) {
            _ = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/ok")
        }
        #expect(try await holder.status == 200)
        #expect(registry.render().contains(#"http_rejected_requests_total{reason="connection_limit"} 1"#))
    }

    static func serverWithTimeouts() throws -> HTTPServer {
        var router = Router()
        router.get("/matches/:matchId") { request in .json(["matchId": try request.parameter("matchId")]) }
        router.post("/echo") { request in .json(try request.decode(HTTPServerTests.Echo.self)) }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                port: 0, threadCount: 2, connectionTimeout: .seconds(2), headerTimeout: .seconds(1), bodyTimeout: .seconds(1)),
            router: router, logger: HTTPServerTests.quietLogger)
        try server.start()
        return server
    }
}
