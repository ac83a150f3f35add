import Foundation
import Runtime
import Synchronization
import Testing

@testable import HTTPServer

/// Router behaviour without sockets: requests are built in memory and passed to `Router.respond`.
struct RouterTests {
    struct Follow: Codable, Equatable {
        var deviceId: String
        var matchId: Int
        var tags: [String]
    }

    struct Failure: Error {}

    private func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    private func makeRouter() -> Router {
        var router = Router()
        router.get("/matches/:matchId") { request in
            .json(["route": "param", "matchId": try request.parameter("matchId")])
        }
        router.get("/matches/live") { _ in .json(["route": "literal"]) }
        router.get("/matches/:matchId/events/:eventId") { request in
            .json(["match": try request.parameter("matchId"), "event": try request.parameter("eventId")])
        }
        router.delete("/matches/:matchId") { _ in .noContent }
        router.post("/follows") { request in
            let follow = try request.decode(Follow.self)
            return .json(follow, status: 201)
        }
        router.get("/teapot") { _ in throw HTTPError(status: 418, code: "teapot", message: "short and stout") }
        router.get("/boom") { _ in throw Failure() }
        router.get("/search") { request in .json(request.query) }
        return router
    }

    static let jsonHeaders = ["Content-Type": "application/json"]

    @Test func bodyOfAnotherMediaTypeIs415() async throws {
        for contentType in [nil, "text/plain", "application/x-www-form-urlencoded", "application/jsonp"] {
            var headers: [String: String] = [:]
            headers["Content-Type"] = contentType
            let response = await makeRouter().respond(
                to: HTTPRequest(method: .post, path: "/follows", headers: headers, body: Array(#"{"deviceId":"d1","matchId":1,"tags":[]}"#.utf8)))
            #expect(response.status == 415, "\(contentType ?? "no Content-Type")")
            #expect(try json(response)["error"] as? String == "unsupported_media_type")
        }
        let charset = await makeRouter().respond(
            to: HTTPRequest(
                method: .post, path: "/follows", headers: ["content-type": "Application/JSON; charset=utf-8"],
                body: Array(#"{"deviceId":"d1","matchId":1,"tags":[]}"#.utf8)))
        #expect(charset.status == 201)
    }

    @Test func pathParametersAreCaptured() async throws {
        let response = await makeRouter().respond(to: HTTPRequest(method: .get, path: "/matches/42/events/7"))
        #expect(response.status == 200)
        #expect(try json(response) as? [String: String] == ["match": "42", "event": "7"])
    }

    @Test func literalSegmentWinsOverParameter() async throws {
        let router = makeRouter()
        let literal = await router.respond(to: HTTPRequest(method: .get, path: "/matches/live"))
        #expect(try json(literal)["route"] as? String == "literal")
        let param = await router.respond(to: HTTPRequest(method: .get, path: "/matches/livex"))
        #expect(try json(param)["route"] as? String == "param")
        #expect(try json(param)["matchId"] as? String == "livex")
    }

    @Test func literalBranchFallsBackToParameterBranch() async throws {
        var router = Router()
        router.get("/a/b") { _ in .text("ab") }
        router.get("/a/:x/c") { request in .text("x=\(try request.parameter("x"))") }
        let response = await router.respond(to: HTTPRequest(method: .get, path: "/a/b/c"))
        #expect(response.bodyText == "x=b")
    }

    /// A parameterless route is found by its exact spelling; another method, HEAD, or another spelling of the
    /// same path still resolve as the trie does.
    @Test func anExactPathFindsTheSameRouteAsTheTrie() async throws {
        var router = Router()
        router.post("/matches/live") { _ in .text("post-live") }
        router.get("/matches/:id") { request in .text("id=\(try request.parameter("id"))") }
        router.get("/a/b") { _ in .text("ab") }
        #expect(await router.respond(to: HTTPRequest(method: .post, path: "/matches/live")).bodyText == "post-live")
        #expect(await router.respond(to: HTTPRequest(method: .get, path: "/matches/live")).bodyText == "id=live")
        #expect(await router.respond(to: HTTPRequest(method: .get, path: "/a/b")).bodyText == "ab")
        #expect(await router.respond(to: HTTPRequest(method: .head, path: "/a/b")).status == 200)
        #expect(await router.respond(to: HTTPRequest(method: .get, path: "//a/b/")).bodyText == "ab")
        #expect(await router.respond(to: HTTPRequest(method: .get, path: "/a/%62")).bodyText == "ab")
        #expect(await router.respond(to: HTTPRequest(method: .delete, path: "/a/b")).status == 405)
        #expect(router.route(HTTPRequest(method: .get, path: "/a/b")).request.route == "/a/b")
    }

    @Test func percentEncodedParametersAndQueryAreDecoded() async throws {
        let router = makeRouter()
        let param = await router.respond(to: HTTPRequest(method: .get, path: "/matches/a%2Fb%20c"))
        #expect(try json(param)["matchId"] as? String == "a/b c")
        let search = await router.respond(
            to: HTTPRequest(method: .get, path: "/search?q=hello+world&team=S%C3%A3o&q=x"))
        #expect(try json(search) as? [String: String] == ["q": "hello world", "team": "São"])
    }

    @Test func unknownPathIs404JSON() async throws {
        let response = await makeRouter().respond(to: HTTPRequest(method: .get, path: "/nope"))
        #expect(response.status == 404)
        #expect(response.header("content-type") == "application/json")
        #expect(try json(response)["error"] as? String == "not_found")
        #expect((try json(response)["message"] as? String)?.contains("/nope") == true)
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        let response = await makeRouter().respond(to: HTTPRequest(method: .put, path: "/matches/9"))
        #expect(response.status == 405)
        #expect(response.header("Allow") == "DELETE, GET, HEAD")
        #expect(try json(response)["error"] as? String == "method_not_allowed")
    }

    @Test func headIsAnsweredByGet() async throws {
        let response = await makeRouter().respond(to: HTTPRequest(method: .head, path: "/matches/live"))
        #expect(response.status == 200)
    }

    @Test func decodesValidBody() async throws {
        let body = Array(#"{"deviceId":"d1","matchId":5,"tags":["a"]}"#.utf8)
        let response = await makeRouter().respond(to: HTTPRequest(method: .post, path: "/follows", headers: Self.jsonHeaders, body: body))
        #expect(response.status == 201)
        let decoded = try JSONDecoder().decode(Follow.self, from: Data(response.body))
        #expect(decoded == Follow(deviceId: "d1", matchId: 5, tags: ["a"]))
    }

    @Test(arguments: [#"{"deviceId": "d1", "matchId": 5,"#, "not json", #"{"deviceId":"d1"} trailing"#, ""])
    func malformedJSONIs400(body: String) async throws {
        let response = await makeRouter().respond(
            to: HTTPRequest(method: .post, path: "/follows", headers: Self.jsonHeaders, body: Array(body.utf8)))
        #expect(response.status == 400)
        #expect(try json(response)["error"] as? String == "malformed_json")
        let message = try #require(try json(response)["message"] as? String)
        #expect(message.count > 20, "message should name the problem: \(message)")
    }

    @Test func wrongFieldTypeNamesTheField() async throws {
        let body = Array(#"{"deviceId":"d1","matchId":"five","tags":["a"]}"#.utf8)
        let response = await makeRouter().respond(to: HTTPRequest(method: .post, path: "/follows", headers: Self.jsonHeaders, body: body))
        #expect(response.status == 400)
        #expect(try json(response)["error"] as? String == "invalid_body")
        let message = try #require(try json(response)["message"] as? String)
        #expect(message.contains("'matchId'") && message.contains("integer"), "\(message)")
    }

    @Test func nestedWrongTypeAndMissingFieldAreNamed() async throws {
        let router = makeRouter()
        let nested = await router.respond(to: HTTPRequest(
            method: .post, path: "/follows", headers: Self.jsonHeaders, body: Array(#"{"deviceId":"d1","matchId":1,"tags":["a",2]}"#.utf8)))
        #expect(try json(nested)["message"] as? String == "wrong type for 'tags[1]': expected string")
        let missing = await router.respond(to: HTTPRequest(
            method: .post, path: "/follows", headers: Self.jsonHeaders, body: Array(#"{"deviceId":"d1","tags":[]}"#.utf8)))
        #expect(try json(missing)["error"] as? String == "invalid_body")
        #expect(try json(missing)["message"] as? String == "missing field 'matchId'")
    }

    @Test func thrownHTTPErrorIsRendered() async throws {
        let response = await makeRouter().respond(to: HTTPRequest(method: .get, path: "/teapot"))
        #expect(response.status == 418)
        #expect(try json(response) as? [String: String] == ["error": "teapot", "message": "short and stout"])
    }

    @Test func plainErrorIs500AndLogged() async throws {
        let lines = LockedValue<[String]>([])
        let logger = Logger(label: "test", sink: LogSink { line in lines.withLock { $0.append(line) } })
        let response = await makeRouter().respond(to: HTTPRequest(method: .get, path: "/boom"), logger: logger)
        #expect(response.status == 500)
        #expect(try json(response)["error"] as? String == "internal_error")
        #expect(!response.bodyText.contains("Failure"))
        #expect(lines.withLock { $0.contains { $0.contains("Failure") && $0.contains("/boom") } })
    }

    @Test func middlewareRunsInOrderAndSeesRenderedErrors() async throws {
        let seen = LockedValue<[String]>([])
        var router = makeRouter()
        router.middleware { request, next in
            seen.withLock { $0.append("outer:\(request.route ?? "-")") }
            var response = await next(request)
            seen.withLock { $0.append("outer-status:\(response.status)") }
            response.headers.append(HTTPHeader(name: "X-Outer", value: "1"))
            return response
        }
        router.middleware { request, next in
            seen.withLock { $0.append("inner") }
            guard request.header("authorization") == "Bearer ok" else { throw HTTPError.unauthorized() }
            return await next(request)
        }
        let denied = await router.respond(to: HTTPRequest(method: .get, path: "/matches/1"))
        #expect(denied.status == 401)
        #expect(denied.header("x-outer") == "1")
        let allowed = await router.respond(
            to: HTTPRequest(method: .get, path: "/teapot", headers: ["Authorization": "Bearer ok"]))
        #expect(allowed.status == 418)
        #expect(seen.withLock { $0 } == [
            "outer:/matches/:matchId", "inner", "outer-status:401", "outer:/teapot", "inner", "outer-status:418",
        ])
    }

    @Test func headerLookupIsCaseInsensitive() {
        let request = HTTPRequest(method: .get, path: "/", headers: ["Authorization": "a", "X-Id": "1"])
        #expect(request.header("authorization") == "a")
        #expect(request.header("AUTHORIZATION") == "a")
        #expect(request.header("x-id") == "1")
    }

    @Test func errorResponseEscapesJSON() throws {
        let response = HTTPResponse.error(status: 400, code: "bad", message: "quote \" and \\ and\nnewline")
        #expect(try json(response)["message"] as? String == "quote \" and \\ and\nnewline")
    }
}
