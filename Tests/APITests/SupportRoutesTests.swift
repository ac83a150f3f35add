@testable import API
import Contracts
import DeliveryRecord
import Foundation
import Operations
import Runtime
import SharedTestSupport
import Testing

/// Support's view through the api: admin only, ids checked, unknown ids 404, tokens only masked, the diagnosis in the
/// answer; the server-rendered page behind its sign-in, rendered by headless Chromium (a screenshot kept).
@Suite struct SupportRoutesTests {
    /// A user following a live match on two devices: "phone" active with accepted updates and a refused one, "tablet"
    /// pending since long ago with an accepted start (no update token came back).
    static func seed(_ api: APITestHarness) async throws -> (user: String, match: String, phoneToken: String, updateToken: String) {
        let user = APITestHarness.unique("fan")
        let match = APITestHarness.unique("final")
        try await api.seedMatch(match, live: true)
        try await api.registerDevice(user, "phone")
        try await api.registerDevice(user, "tablet")
        #expect(try await api.call("POST", "/user/follow/match", as: user, json: ["matchId": match]).status == 200)
        let updateToken = APITestHarness.hexToken(length: 160)
        #expect(try await api.call("POST", "/matches/\(match)/activity-token", as: user, json: ["token": updateToken, "deviceId": "phone"]).status == 200)
        try await api.database.execute(
            "UPDATE live_activities SET updated_at = now() - interval '20 minutes' WHERE match_id = $1 AND user_id = $2 AND device_id = 'tablet'",
            [match, user])
        let phoneToken = try #require(try await api.database.query(
            "SELECT push_token FROM devices WHERE user_id = $1 AND device_id = 'phone'", [user]).first?.decode("push_token", as: String.self))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        func outcome(_ job: String, _ kind: PushKind, device: String, token: String, result: PushResult, at: Int64, status: Int, reason: String? = nil)
            -> PushOutcome {
            let job = PushJob(jobId: job, kind: kind, matchId: match, stateSeq: 3, priority: 5, expiration: 0, relevanceScore: nil,
                              payload: #"{"aps":{"timestamp":\#(at / 1000)}}"#,
                              targets: [PushTarget(token: token, env: .sandbox, userId: user, deviceId: device)], createdAt: at - 300, knownAt: at - 900)
            return PushOutcome(job: job, contentTimestamp: at / 1000, finishedAt: at, results: [
                PushTargetResult(userId: user, deviceId: device, token: TokenMask.mask(token), result: result, status: status, reason: reason,
                                 apnsId: "8b1d4c2e-913a-4f0b-8e57-2dc4139a7760", tries: 1, at: at)])
        }
        let outcomes = [
            outcome("start:\(match):\(user):tablet:1", .liveActivityStart, device: "tablet", token: phoneToken, result: .accepted, at: now - 15 * 60_000,
                    status: 200),
            outcome("e1:0:0", .liveActivityUpdate, device: "phone", token: updateToken, result: .accepted, at: now - 60_000, status: 200),
            outcome("e2:0:0", .liveActivityUpdate, device: "phone", token: updateToken, result: .refused, at: now - 30_000, status: 410,
                    reason: "Unregistered"),
        ]
        _ = try await DeliveryRecordStore(database: api.database).record(topic: "support-tests-" + match, batch: outcomes.enumerated().map {
            DeliveryRecordStore.Recorded(partition: 0, offset: Int64($0.offset), outcome: $0.element)
        })
        return (user, match, phoneToken, updateToken)
    }

    @Test("admin only; ids checked; unknown ids are 404; the report has both devices, masked tokens and the findings")
    func jsonRoutes() async throws {
        let api = try await APITestHarness.shared()
        let (user, match, phoneToken, updateToken) = try await Self.seed(api)
        #expect(try await api.call("GET", "/admin/support/users/\(user)", as: nil).status == 401)
        #expect(try await api.call("GET", "/admin/support/users/\(user)", as: user).status == 403, "the user themself is not an admin")
        #expect(try await api.call("GET", "/admin/support/users/..", as: "root", admin: true).status == 400)
        #expect(try await api.call("GET", "/admin/support/users/a%20b", as: "root", admin: true).status == 400)
        let unknown = try await api.call("GET", "/admin/support/users/\(APITestHarness.unique("nobody"))", as: "root", admin: true)
        #expect(unknown.status == 404 && unknown.json["error"] as? String == "not_found", "\(unknown.text)")
        #expect(try await api.call("GET", "/admin/support/users/\(user)/devices/laptop", as: "root", admin: true).status == 404)

        let answer = try await api.call("GET", "/admin/support/users/\(user)", as: "root", admin: true)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(!answer.text.contains(phoneToken) && !answer.text.contains(updateToken), "no whole token in the answer")
        let report = try JSONDecoder().decode(SupportReport.self, from: Data(answer.body))
        #expect(Set(report.devices.map(\.deviceId)) == ["phone", "tablet"])
        let phone = try #require(report.devices.first { $0.deviceId == "phone" }?.activities.first { $0.matchId == match })
        #expect(phone.status == "active" && phone.updateToken == TokenMask.mask(updateToken) && phone.totals?.refused == 1 && phone.totals?.accepted == 1)
        #expect(phone.findings.contains { $0.code == .tokenRefused && $0.message.contains("410 Unregistered") }, "\(phone.findings)")
        let tablet = try #require(report.devices.first { $0.deviceId == "tablet" }?.activities.first)
        #expect(tablet.status == "pending" && tablet.findings.first?.code == .noUpdateToken, "\(tablet.findings)")

        let activity = try await api.call("GET", "/admin/support/matches/\(match)/users/\(user)/devices/phone", as: "root", admin: true)
        let one = try JSONDecoder().decode(SupportReport.self, from: Data(activity.body))
        #expect(one.scope == .activity && one.devices.map(\.deviceId) == ["phone"] && one.devices[0].activities.map(\.matchId) == [match])
        let metrics = api.service.metrics.registry.render()
        #expect(metrics.contains(#"api_support_lookups_total{scope="activity"}"#), "every look-up is counted")
    }

    @Test("the page: HTML with findings and the timeline, bearer or the sign-in's cookie; errors as HTML; headless Chromium signs in and renders it")
    func page() async throws {
        let api = try await APITestHarness.shared()
        let (user, _, phoneToken, updateToken) = try await Self.seed(api)
        let html = try await api.call("GET", "/admin/support/view?user=\(user)", as: "root", admin: true)
        #expect(html.status == 200 && html.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(html.headers["x-content-type-options"] == "nosniff" && html.headers["cache-control"] == "no-store")
        #expect(html.text.contains("no_update_token") && html.text.contains("token_refused") && html.text.contains("Device tablet"), "\(html.text)")
        #expect(!html.text.contains(phoneToken) && !html.text.contains(updateToken))
        let adminToken = api.token("root", admin: true)
        let withCookie = try await RawHTTPClient.request(port: api.port, method: "GET", path: "/admin/support/view?user=\(user)",
                                                         headers: ["Cookie": "other=1; sightscreen_admin=\(adminToken)"])
        #expect(withCookie.status == 200 && withCookie.text.contains("Device phone"))
        let notAdmin = try await RawHTTPClient.request(port: api.port, method: "GET", path: "/admin/support/view?user=\(user)",
                                                       headers: ["Cookie": "sightscreen_admin=\(api.token(user))"])
        #expect(notAdmin.status == 403 && notAdmin.text.contains("Sign in"))
        let bad = try await api.call("GET", "/admin/support/view?user=%3Cscript%3E", as: "root", admin: true)
        #expect(bad.status == 400 && !bad.text.contains("<script>"), "a malformed id is refused, never echoed as markup")

        let url = "http://127.0.0.1:\(api.port)/admin/support#token=\(adminToken)&user=\(user)"
        let dom = try await HeadlessChromium.dom(url)
        #expect(dom.contains("Delivery record: user \(user)") && dom.contains("no_update_token") && dom.contains("token_refused"),
                "the sign-in keeps the token and opens the view: \(dom.prefix(2000))")
        #expect(!dom.contains(phoneToken))
        let screenshot = HeadlessChromium.artifactsDirectory + "/support-page.png"
        try await HeadlessChromium.screenshot(url, to: screenshot)
        let size = (try FileManager.default.attributesOfItem(atPath: screenshot)[.size] as? Int) ?? 0
        #expect(size > 10_000, "a rendered page, not a blank one: \(size) bytes at \(screenshot)")
    }
}
