@testable import API
import Contracts
import HTTPServer
import SharedTestSupport
import Foundation
import Testing

@Suite("Schedule, live matches, match detail, app config")
struct MatchTests {
    @Test func scheduleListsTheCardsOfOneUTCDay() async throws {
        let api = try await APITestHarness.shared().over(.http)  // this route proven over real HTTP too
        // A day nobody else uses.
        let year = Int.random(in: 3000...9000)
        let day = "\(year)-06-15"
        let dayStart = try InputRules.day(day)
        let (early, late, next) = (APITestHarness.unique("m"), APITestHarness.unique("m"), APITestHarness.unique("m"))
        try await api.seedMatch(late, live: false, startsAt: dayStart.addingTimeInterval(20 * 3600))
        try await api.seedMatch(early, live: false, startsAt: dayStart.addingTimeInterval(3600))
        try await api.seedMatch(next, live: false, startsAt: dayStart.addingTimeInterval(86_400))
        let response = try await api.call("GET", "/matches?date=\(day)", as: APITestHarness.unique("u"))
        #expect(response.status == 200)
        #expect(response.json["date"] as? String == day)
        let cards = try JSONDecoder().decode([MatchCard].self, from: JSONSerialization.data(withJSONObject: response.json["matches"] as Any))
        #expect(cards.map(\.matchId) == [early, late])
        #expect(cards[0] == APITestHarness.card(early, startsAt: Int64(dayStart.timeIntervalSince1970) + 3600))

        for bad in ["2024-13-01", "2024-02-30", "yesterday", "2024-1-1"] {
            let refused = try await api.call("GET", "/matches?date=\(bad)", as: APITestHarness.unique("u"))
            #expect(refused.status == 400, "\(bad)")
            #expect(refused.json["error"] as? String == "invalid_parameter")
        }
    }

    @Test func liveListsDisplayStatesAndShortensRetryInKeyMoments() async throws {
        let api = try await APITestHarness.shared()
        let match = APITestHarness.unique("m")
        try await api.seedMatch(match, live: true)
        let user = APITestHarness.unique("u")
        var response = try await api.call("GET", "/matches/live", as: user)
        #expect(response.status == 200)
        let states = try JSONDecoder().decode([UnifiedDisplayState].self, from: JSONSerialization.data(withJSONObject: response.json["matches"] as Any))
        #expect(states.contains(APITestHarness.displayState(match)))
        #expect([5000, 15000].contains(response.json["retryAfterMs"] as? Int ?? 0))

        try await api.database.execute("UPDATE active_matches SET last_key_event_at = now() WHERE match_id = $1", [match])
        response = try await api.call("GET", "/matches/live", as: user)
        #expect(response.json["retryAfterMs"] as? Int == 5000)
        try await api.database.execute("UPDATE matches SET is_live = false WHERE match_id = $1", [match])
    }

    /// While the shared body is fresh, GET /matches/live is answered on the server's thread (the route's immediate
    /// handler) with that body; a bad token is refused there too; a stale body goes back to the async handler.
    @Test func liveIsAnsweredImmediatelyWhileTheSharedBodyIsFresh() async throws {
        let clock = ManualWallClock(Date())
        let api = try await APITestHarness.make(clock: clock) { $0.liveCacheSeconds = 1 }
        defer { api.server.stopInBackground() }
        let match = APITestHarness.unique("m")
        try await api.seedMatch(match, live: true)
        let user = APITestHarness.unique("u")
        func live(_ headers: [String: String]) -> RoutedRequest {
            api.router.route(HTTPRequest(method: .get, path: "/matches/live", headers: headers))
        }
        let signedIn = ["Authorization": "Bearer \(api.token(user))"]
        #expect(api.router.respondImmediately(to: live(signedIn)) == nil)  // nothing cached yet
        let built = await api.router.respond(to: live(signedIn))
        #expect(built.status == 200)
        #expect(built.bodyText.contains(match))

        let later = APITestHarness.unique("m")
        try await api.seedMatch(later, live: true)
        let cached = try #require(api.router.respondImmediately(to: live(signedIn)))
        #expect(cached.status == 200)
        #expect(cached.body == built.body)
        #expect(cached.headers.contains { $0.name == "Cache-Control" && $0.value == "no-store" })
        #expect(api.router.respondImmediately(to: live([:]))?.status == 401)
        #expect(api.router.respondImmediately(to: live(["Authorization": "Bearer not.a.token"]))?.status == 401)

        clock.advance(by: 1.5)
        #expect(api.router.respondImmediately(to: live(signedIn)) == nil)
        let rebuilt = await api.router.respond(to: live(signedIn))
        #expect(rebuilt.bodyText.contains(later))
        for id in [match, later] { try await api.database.execute("UPDATE matches SET is_live = false WHERE match_id = $1", [id]) }
    }

    @Test func retryPolicyBranches() {
        let policy = LiveRetryPolicy()
        let now = Date()
        let state = APITestHarness.displayState("x")
        #expect(policy.retryAfterMs([], now: now) == 60000)
        #expect(policy.retryAfterMs([.init(state: state, lastKeyEventAt: nil, cooldownUntil: [])], now: now) == 15000)
        #expect(policy.retryAfterMs([.init(state: state, lastKeyEventAt: now.addingTimeInterval(-300), cooldownUntil: [])], now: now) == 15000)
        #expect(policy.retryAfterMs([.init(state: state, lastKeyEventAt: now.addingTimeInterval(-30), cooldownUntil: [])], now: now) == 5000)
        let future = Int64(now.timeIntervalSince1970 * 1000) + 20_000
        #expect(policy.retryAfterMs([.init(state: state, lastKeyEventAt: nil, cooldownUntil: [future])], now: now) == 5000)
    }

    @Test func matchDetailAndUnknownMatch() async throws {
        let api = try await APITestHarness.shared()
        let match = APITestHarness.unique("m")
        try await api.seedMatch(match, live: true)
        let user = APITestHarness.unique("u")
        let response = try await api.call("GET", "/matches/\(match)", as: user)
        #expect(response.status == 200)
        #expect(response.json["isLive"] as? Bool == true)
        #expect(response.json["following"] as? Bool == false)
        #expect((response.json["card"] as? [String: Any])?["matchId"] as? String == match)
        #expect((response.json["displayState"] as? [String: Any])?["matchId"] as? String == match)
        #expect(try await api.call("GET", "/matches/\(APITestHarness.unique("none"))", as: user).status == 404)
        #expect(try await api.call("GET", "/matches/bad%20id", as: user).status == 400)
    }

    @Test func appConfigNeedsNoToken() async throws {
        let api = try await APITestHarness.shared()
        let response = try await api.call("GET", "/app/config", as: nil)
        #expect(response.status == 200)
        #expect(response.json["minVersion"] is String)
        #expect(response.json["maintenance"] is Bool)
        #expect(response.json["message"] is String)
    }

    @Test func shardsAreInRange() {
        #expect((0..<24).contains(PushSharding.shard(token: APITestHarness.hexToken(), shards: 24)))
    }
}
