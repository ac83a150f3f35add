import Foundation
import HTTPServer

/// GET /matches?date=, GET /matches/live, GET /matches/:matchId.
enum MatchRoutes {
    static func routes(_ service: APIService) -> [APIRoute] {
        [
            APIRoute(method: .get, pattern: "/matches") { request in
                _ = try await service.authenticator.user(request)
                let date = request.query["date"] ?? String(ISOTime.string(service.clock.now()).prefix(10))
                let cards = try await service.matches.schedule(dayStart: try InputRules.day(date))
                return .json(APIBodies.ScheduleResponse(date: date, matches: cards))
            },
            // Every app polls it: while the shared body is fresh, it is answered on the server's thread
            // (a cached token check and a cached body); otherwise the async handler builds the body.
            APIRoute(method: .get, pattern: "/matches/live", immediate: { request throws(HTTPError) in
                guard let body = service.liveCache.bodyAtHand(), try service.authenticator.immediateUser(request) != nil else {
                    return nil
                }
                return liveResponse(body)
            }) { request in
                _ = try await service.authenticator.user(request)
                return liveResponse(try await service.liveCache.body {
                    let live = try await service.matches.live()
                    let retry = service.configuration.liveRetry.retryAfterMs(live, now: service.clock.now())
                    return HTTPResponse.json(APIBodies.LiveResponse(matches: live.map(\.state), retryAfterMs: retry)).body
                })
            },
            APIRoute(method: .get, pattern: "/matches/:matchId") { request in
                let user = try await service.authenticator.user(request)
                let matchId = try InputRules.pathId(request, "matchId")
                guard let (info, following) = try await service.matches.detail(matchId: matchId, userId: user.userId) else {
                    throw HTTPError.notFound("no match \(matchId)")
                }
                return .json(APIBodies.MatchResponse(
                    matchId: matchId, isLive: info.isLive, following: following, card: info.card, displayState: info.displayState))
            },
        ]
    }

    /// The GET /matches/live answer around the shared body.
    private static func liveResponse(_ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: [HTTPHeader(name: "Content-Type", value: "application/json"), HTTPHeader(name: "Cache-Control", value: "no-store")],
            body: body)
    }
}
