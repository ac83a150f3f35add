import Foundation
import Runtime
import SharedTestSupport
import Synchronization
import Testing

@testable import HTTPServer

/// Routes with an immediate handler: answered on the server's thread when it has the answer, by the async
/// handler when it returns nil, its `HTTPError` rendered; pipelined immediate answers stay in order.
@Suite(.timeLimit(.minutes(2)))
struct ImmediateHandlerTests {
    /// `/fast/:n`: even `n` answered immediately, odd `n` left to the async handler (which counts its calls),
    /// `x` refused with 403 by the immediate handler.
    static func startServer(asyncCalls: CallCount) throws -> HTTPServer {
        try HTTPServerTests.startServer { router in
            router.add(.get, "/fast/:n", immediate: { request throws(HTTPError) in
                let n = try request.parameter("n")
                if n == "x" { throw HTTPError.forbidden("not x") }
                guard let number = Int(n), number % 2 == 0 else { return nil }
                return .text("now-\(n)")
            }) { [asyncCalls] request in
                asyncCalls.value.add(1, ordering: .relaxed)
                return .text("later-\(try request.parameter("n"))")
            }
        }
    }

    @Test func anImmediateAnswerSkipsTheAsyncHandlerAndNilFallsBackToIt() async throws {
        let asyncCalls = CallCount()
        let server = try Self.startServer(asyncCalls: asyncCalls)
        defer { server.stopInBackground() }
        let even = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/fast/2")
        #expect(even.status == 200)
        #expect(even.text == "now-2")
        let odd = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/fast/3")
        #expect(odd.status == 200)
        #expect(odd.text == "later-3")
        let refused = try await RawHTTPClient.request(port: server.port, method: "GET", path: "/fast/x")
        #expect(refused.status == 403)
        #expect(refused.text.contains("not x"))
        #expect(asyncCalls.value.load(ordering: .relaxed) == 1)
    }

    @Test func theRouterAnswersImmediatelyOnlyWithoutMiddleware() async throws {
        var router = Router()
        router.add(.get, "/a", immediate: { _ throws(HTTPError) in .text("now") }) { _ in .text("later") }
        #expect(router.respondImmediately(to: router.route(HTTPRequest(method: .get, path: "/a")))?.status == 200)
        #expect(router.respondImmediately(to: router.route(HTTPRequest(method: .get, path: "/b"))) == nil)
        router.middleware { request, next in await next(request) }
        #expect(router.respondImmediately(to: router.route(HTTPRequest(method: .get, path: "/a"))) == nil)
        #expect(await router.respond(to: HTTPRequest(method: .get, path: "/a")).bodyText == "later")
    }

    /// Immediate answers are written from inside the read loop; the next pipelined request must be framed by
    /// that loop (not by a nested call per answer), and every answer comes back once, in order.
    @Test func aLongPipelineOfImmediateAndAsyncAnswersComesBackInOrder() async throws {
        let asyncCalls = CallCount()
        let server = try Self.startServer(asyncCalls: asyncCalls)
        defer { server.stopInBackground() }
        let count = 2_000
        var text = ""
        for n in 0..<count {
            text += "GET /fast/\(n) HTTP/1.1\r\nHost: x\r\n" + (n == count - 1 ? "Connection: close\r\n" : "") + "\r\n"
        }
        let response = try await RawHTTPClient.raw(port: server.port, bytes: Array(text.utf8), readToEnd: true)
        let all = "HTTP/1.1 200 OK" + response.text  // the first head was parsed off
        let answers = all.matches(of: /(?:now|later)-[0-9]+/).map { String(all[$0.range]) }
        #expect(answers == (0..<count).map { $0 % 2 == 0 ? "now-\($0)" : "later-\($0)" })
        #expect(asyncCalls.value.load(ordering: .relaxed) == count / 2)
        #expect(all.components(separatedBy: "HTTP/1.1 200 OK").count - 1 == count)
    }
}

extension ImmediateHandlerTests {
    /// A client that pipelines immediate requests and never reads their answers: once the answers back up, the
    /// server stops reading, so the client's sends stall instead of the server buffering everything it is sent.
    @Test func aClientThatDoesNotReadItsAnswersIsNotReadFurther() async throws {
        let server = try HTTPServerTests.startServer { router in
            let answer = String(repeating: "x", count: 4096)
            router.add(.get, "/big", immediate: { _ throws(HTTPError) in .text(answer) }) { _ in .text(answer) }
        }
        defer { server.stopInBackground() }
        let limit = 64 << 20
        let taken = try await RawHTTPClient.bytesTakenWithoutReading(
            port: server.port, request: Array("GET /big HTTP/1.1\r\nHost: x\r\n\r\n".utf8), limit: limit, stall: .seconds(2))
        // Socket buffers on both sides hold a few MB at most; a server that kept reading would take all 64 MB.
        #expect(taken < limit / 4, "the server took \(taken) bytes from a client that read none of its answers")
        #expect(taken > 0)
    }
}

/// How often an async handler ran.
final class CallCount: Sendable {
    let value = Atomic<Int>(0)
}
