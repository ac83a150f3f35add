import Contracts
import Foundation
import HTTPServer

/// The SportMonks Cricket v2.0 endpoints the fake serves: `/api/v2.0/livescores`,
/// `/api/v2.0/fixtures/{id}` and the paginated `/api/v2.0/fixtures` (filters `starts_between`, `status`).
enum FeedAPIRoutes {
    static let prefix = "/api/v2.0"

    static func install(on router: inout Router, feed: FakeFeed) {
        router.get(prefix + "/livescores") { request in
            try await serve(request, feed: feed, endpoint: "livescores") {
                let include = IncludeSet(request.query["include"])
                let fixtures = feed.liveFixtureIds().compactMap(feed.fixture).map(include.apply)
                return .object(["data": .array(fixtures)])
            }
        }
        router.get(prefix + "/fixtures/:id") { request in
            try await serve(request, feed: feed, endpoint: "fixture") {
                guard let id = Int(try request.parameter("id")), let fixture = feed.fixture(id) else { return nil }
                return .object(["data": IncludeSet(request.query["include"]).apply(to: fixture)])
            }
        }
        router.get(prefix + "/fixtures") { request in
            try await serve(request, feed: feed, endpoint: "fixtures") { try fixtureList(request, feed: feed) }
        }
    }

    /// Checks `api_token`, counts the request, builds the reply (nil: 404) and applies a pending fault.
    static func serve(
        _ request: HTTPRequest, feed: FakeFeed, endpoint: String, _ build: () throws -> JSONValue?
    ) async throws -> HTTPResponse {
        feed.count(endpoint)
        guard let token = request.query["api_token"], !token.isEmpty, token == feed.configuration.apiToken else {
            return FeedResponses.error(401, FeedResponses.unauthenticated)
        }
        let fault = feed.faults.take(endpoint: endpoint)
        if let fault, [.serverError, .rateLimited, .forbidden, .garbage].contains(fault.kind) {
            return FeedResponses.applying(fault, to: .null)
        }
        guard let value = try build() else { return FeedResponses.error(404, FeedResponses.notFound) }
        return FeedResponses.applying(fault, to: value)
    }

    /// GET /fixtures: filtered, sorted by `starting_at` (or `sort=-starting_at`), 100 per page.
    static func fixtureList(_ request: HTTPRequest, feed: FakeFeed) throws -> JSONValue {
        var from = Date.distantPast, to = Date.distantFuture
        if let between = request.query["filter[starts_between]"] {
            let bounds = between.split(separator: ",", maxSplits: 1).map(String.init)
            guard bounds.count == 2, let lower = SportMonksTime.parseBound(bounds[0], endOfDay: false),
                  let upper = SportMonksTime.parseBound(bounds[1], endOfDay: true) else {
                throw HTTPError(status: 400, code: "bad_filter",
                                message: "filter[starts_between] must be FROM,TO as YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS")
            }
            from = lower; to = upper
        }
        var ids = feed.fixtureIds(startingBetween: from, and: to)
        if request.query["sort"] == "-starting_at" { ids.reverse() }
        let include = IncludeSet(request.query["include"])
        var fixtures = ids.compactMap(feed.fixture)
        if let status = request.query["filter[status]"] {
            let wanted = Set(status.split(separator: ",").map(String.init))
            fixtures = fixtures.filter { if case .string(let s)? = $0["status"] { wanted.contains(s) } else { false } }
        }
        let perPage = max(1, feed.configuration.perPage)
        let total = fixtures.count
        let lastPage = max(1, (total + perPage - 1) / perPage)
        let page = min(max(1, Int(request.query["page"] ?? "1") ?? 1), lastPage)
        let slice = fixtures.dropFirst((page - 1) * perPage).prefix(perPage).map(include.apply)
        let path = "http://\(request.header("host") ?? "127.0.0.1")\(prefix)/fixtures"
        func link(_ n: Int?) -> JSONValue { n.map { .string("\(path)?page=\($0)") } ?? .null }
        let first = total == 0 ? nil : (page - 1) * perPage + 1
        let pageLinks: [JSONValue] = [.object(["url": link(page > 1 ? page - 1 : nil), "label": .string("&laquo; Previous"),
                                               "active": .bool(false)])]
            + (1...lastPage).map { n in .object(["url": link(n), "label": .string(String(n)), "active": .bool(n == page)]) }
            + [.object(["url": link(page < lastPage ? page + 1 : nil), "label": .string("Next &raquo;"), "active": .bool(false)])]
        return .object([
            "data": .array(Array(slice)),
            "links": .object(["first": link(1), "last": link(lastPage), "prev": link(page > 1 ? page - 1 : nil),
                              "next": link(page < lastPage ? page + 1 : nil)]),
            "meta": .object(["current_page": .int(page), "from": first.map(JSONValue.int) ?? .null,
                             "last_page": .int(lastPage), "links": .array(pageLinks), "path": .string(path),
                             "per_page": .int(perPage), "to": first.map { .int($0 + slice.count - 1) } ?? .null,
                             "total": .int(total)]),
        ])
    }
}
