import SharedTestSupport
import Foundation
import Runtime
import Synchronization
import Testing

@testable import HTTPServer

/// The real server on 127.0.0.1, port 0, driven by a raw-socket client.
@Suite(.timeLimit(.minutes(2)))
struct HTTPServerTests {
    struct Echo: Codable, Sendable {
        var id: Int
        var name: String
    }

    static let quietLogger = Logger(label: "http-test", minimumLevel: .error, sink: LogSink { _ in })

    /// A started server with a few routes; `limit` is the body limit.
    static func startServer(
        limit: Int = 1024, metrics: MetricsRegistry? = nil, configure: (inout Router) -> Void = { _ in }
    ) throws -> HTTPServer {
        var router = Router()
        router.get("/matches/:matchId") { request in
            .json(["matchId": try request.parameter("matchId"), "q": request.query["q"] ?? ""])
        }
        router.get("/matches/live") { _ in .json(["live": true]) }
        router.post("/echo") { request in .json(try request.decode(Echo.self)) }
        router.get("/teapot") { _ in throw HTTPError(status: 418, code: "teapot", message: "short and stout") }
        router.get("/boom") { _ in throw CocoaError(.fileNoSuchFile) }
        router.get("/n/:n") { request in
            let n = try request.parameter("n")
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...20)))
            return .text("answer-\(n)")
        }
        configure(&router)
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threadCount: 2, maxBodyBytes: limit),
            router: router, logger: quietLogger, metrics: metrics)
        try server.start()
        return server
    }

    @Test func servesPathParametersAndQuery() async throws {
        let server = try Self.startServer()
        defer { server.stopInBackground() }
        #expect(server.port != 0)
        let response = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/matches/42?q=a%20b")
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.json as? [String: String] == ["matchId": "42", "q": "a b"])
        let literal = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/matches/live")
        #expect(literal.json["live"] as? Bool == true)
    }

    @Test func unknownPathAndWrongMethodAreJSONErrors() async throws {
        let server = try Self.startServer()
        defer { server.stopInBackground() }
        let missing = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/nowhere")
        #expect(missing.status == 404)
        #expect(missing.json["error"] as? String == "not_found")
        let wrong = try await RawHTTPClient.request(port: server.port, method: "DELETE", path: "/matches/1")
        #expect(wrong.status == 405)
        #expect(wrong.headers["allow"] == "GET, HEAD")
        #expect(wrong.json["error"] as? String == "method_not_allowed")
    }

    @Test func oversizedBodyWithContentLengthIs413() async throws {
        let server = try Self.startServer(limit: 1024)
        defer { server.stopInBackground() }
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 200_000)
        let response = try await RawHTTPClient.request(port: server.port, method: "POST", path: "/echo", body: body)
        #expect(response.status == 413)
        #expect(response.json["error"] as? String == "payload_too_large")
        let atLimit = Array(#"{"id":1,"name":"\#(String(repeating: "x", count: 1000))"}"#.utf8)
        #expect(atLimit.count <= 1024)
        let ok = try await RawHTTPClient.request(port: server.port, method: "POST", path: "/echo", body: atLimit)
        #expect(ok.status == 200)
    }

    @Test func oversizedChunkedBodyIs413() async throws {
        let server = try Self.startServer(limit: 1024)
        defer { server.stopInBackground() }
        let head = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        var bytes = Array(head.utf8)
        let chunk = [UInt8](repeating: UInt8(ascii: "b"), count: 600)
        for _ in 0..<4 {
            bytes += Array("258\r\n".utf8) + chunk + Array("\r\n".utf8)
        }
        bytes += Array("0\r\n\r\n".utf8)
        let response = try await RawHTTPClient.raw(port: server.port, bytes: bytes)
        #expect(response.status == 413)
        #expect(response.json["error"] as? String == "payload_too_large")
    }

    @Test func chunkedBodyFarOverTheLimitIsAnswered413Once() async throws {
        let server = try Self.startServer(limit: 1024)
        defer { server.stopInBackground() }
        var bytes = Array("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let chunk = [UInt8](repeating: UInt8(ascii: "c"), count: 0x4000)
        for _ in 0..<64 { bytes += Array("4000\r\n".utf8) + chunk + Array("\r\n".utf8) }
        bytes += Array("0\r\n\r\n".utf8)
        // Refused as soon as the first chunk's size passes the limit; the rest is drained, not answered.
        let response = try await RawHTTPClient.raw(port: server.port, bytes: bytes, readToEnd: true)
        #expect(response.status == 413)
        #expect(response.text.components(separatedBy: "HTTP/1.1").count == 1)
        // The server is still healthy afterwards.
        let after = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/matches/live")
        #expect(after.status == 200)
    }

    @Test func keepAliveConnectionServesSeveralRequests() async throws {
        let server = try Self.startServer()
        defer { server.stopInBackground() }
        var bytes = Array("GET /matches/1 HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        bytes += Array("GET /matches/2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
        let response = try await RawHTTPClient.raw(port: server.port, bytes: bytes, readToEnd: true)
        #expect(response.status == 200)
        #expect(response.text.contains(#""matchId":"1""#))
        #expect(response.text.contains(#""matchId":"2""#))
    }

    @Test func startTwiceAndStopTwice() async throws {
        let server = try Self.startServer()
        #expect(throws: HTTPServerError.self) { try server.start() }
        await server.stop()
        await server.stop()
        #expect(throws: HTTPServerError.self) { try server.start() }
    }

    @Test func malformedAndMistypedJSONAre400() async throws {
        let server = try Self.startServer()
        defer { server.stopInBackground() }
        let malformed = try await RawHTTPClient.request(
            port: server.port, method: "POST", path: "/echo", body: Array(#"{"id": 1,"#.utf8))
        #expect(malformed.status == 400)
        #expect(malformed.json["error"] as? String == "malformed_json")
        #expect((malformed.json["message"] as? String)?.isEmpty == false)
        let mistyped = try await RawHTTPClient.request(
            port: server.port, method: "POST", path: "/echo", body: Array(#"{"id":"one","name":"n"}"#.utf8))
        #expect(mistyped.status == 400)
        #expect(mistyped.json["error"] as? String == "invalid_body")
        #expect((mistyped.json["message"] as? String)?.contains("'id'") == true)
        let good = try await RawHTTPClient.request(
            port: server.port, method: "POST", path: "/echo", body: Array(#"{"id":7,"name":"n"}"#.utf8))
        #expect(good.status == 200)
        #expect(good.json["id"] as? Int == 7)
    }

    @Test func thrownErrorsBecomeJSON() async throws {
        let server = try Self.startServer()
        defer { server.stopInBackground() }
        let teapot = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/teapot")
        #expect(teapot.status == 418)
        #expect(teapot.json as? [String: String] == ["error": "teapot", "message": "short and stout"])
        let boom = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/boom")
        #expect(boom.status == 500)
        #expect(boom.json["error"] as? String == "internal_error")
    }

    @Test func twoHundredConcurrentRequestsGetTheirOwnAnswers() async throws {
        let server = try Self.startServer()
        defer { server.stopInBackground() }
        let port = server.port
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<200 {
                group.addTask {
                    let response = try await RawHTTPClient.request(port: port, method: "GET", path: "/n/\(n)")
                    return response.status == 200 && response.text == "answer-\(n)" ? 0 : 1
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func stopLetsAnInFlightRequestFinish() async throws {
        let entered = Atomic<Bool>(false)
        var router = Router()
        router.get("/slow") { _ in
            entered.store(true, ordering: .relaxed)
            try await Task.sleep(for: .milliseconds(400))
            return .text("finished")
        }
        router.get("/matches/live") { _ in .json(["live": true]) }
        // A grace far longer than the handler: stop must end when the request does, not at the grace.
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threadCount: 2, shutdownGracePeriod: .seconds(60)),
            router: router, logger: Self.quietLogger)
        try server.start()
        let port = server.port
        async let slow = RawHTTPClient.request(port: port, method: "GET", path: "/slow")
        for _ in 0..<500 where !entered.load(ordering: .relaxed) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let didEnter = entered.load(ordering: .relaxed)
        #expect(didEnter)
        let started = ContinuousClock.now
        await server.stop()
        let waited = ContinuousClock.now - started
        let response = try await slow
        #expect(response.status == 200)
        #expect(response.text == "finished")
        #expect(waited >= .milliseconds(200) && waited < .seconds(40), "stop waited \(waited)")
        await #expect(throws: ClientError.self) {
            _ = try await RawHTTPClient.request(port: port, method: "GET", path: "/matches/live")
        }
        await server.stop()  // idempotent
    }

    @Test func stopAnswers503AfterTheGracePeriod() async throws {
        var router = Router()
        let handling = Atomic<Bool>(false)
        router.get("/stuck") { _ in
            handling.store(true, ordering: .relaxed)
            try? await Task.sleep(for: .seconds(30))
            return .text("late")
        }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(shutdownGracePeriod: .milliseconds(200)),
            router: router, logger: Self.quietLogger)
        try server.start()
        async let stuck = RawHTTPClient.request(port: server.port, method: "GET", path: "/stuck")
        // Stop only once the request is being handled (a fixed sleep lost the race on a loaded
        // machine: the server stopped before the client connected).
        let deadline = ContinuousClock.now + .seconds(20)
        while !handling.load(ordering: .relaxed), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        let reached = handling.load(ordering: .relaxed)
        #expect(reached, "the request reached its handler")
        await server.stop()
        let response = try await stuck
        #expect(response.status == 503)
        #expect(response.json["error"] as? String == "unavailable")
    }

    @Test func portInUseFailsNamingThePort() async throws {
        let first = try Self.startServer()
        defer { first.stopInBackground() }
        let second = HTTPServer(
            configuration: HTTPServerConfiguration(port: first.port), router: Router(), logger: Self.quietLogger)
        let error = try #require(throws: HTTPServerError.self) { try second.start() }
        #expect(error.kind == .bindFailed)
        #expect(error.port == first.port)
        #expect(error.description.contains("127.0.0.1:\(first.port)"))
        #expect(error.description.contains("in use"))
    }

    @Test func invalidHostIsRejected() {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "example.invalid"), router: Router(), logger: Self.quietLogger)
        #expect(throws: HTTPServerError.self) { try server.start() }
    }

    @Test func recordsRequestMetrics() async throws {
        let registry = MetricsRegistry()
        let server = try Self.startServer(metrics: registry)
        defer { server.stopInBackground() }
        _ = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/matches/5")
        _ = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/nowhere")
        // Completion is notified after the answer is written; allow it a moment.
        var text = ""
        for _ in 0..<200 {
            text = registry.render()
            if text.contains("status=\"404\"") && text.contains("status=\"200\"") { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(text.contains(#"http_requests_total{method="GET",route="/matches/:matchId",status="200"} 1"#))
        #expect(text.contains(#"http_requests_total{method="GET",route="unmatched",status="404"} 1"#))
        #expect(text.contains(#"http_request_duration_seconds_count{method="GET",route="/matches/:matchId"} 1"#))
    }
}
