@testable import DeviceSimulator
import Contracts
import Foundation
import HTTPServer
import Testing

@Suite struct PreviewTests {
    static let ids = ["lock-headline", "lock-detail", "lock-footer", "compact-leading", "compact-trailing", "minimal", "expanded",
                      "result-line", "match-phase"]

    static func snapshot(_ activities: [ActivitySnapshot]) -> DeviceSnapshot {
        DeviceSnapshot(
            deviceId: "d1", userId: "u1", follows: ["m1"], activities: activities, pushesReceived: 3, lastEvent: "end m1 @200",
            startsReceived: 1, updatesReceived: 1, endsReceived: 1, otherReceived: 0, liveActivitiesEnabled: true, launch: "ready",
            deviceToken: "", pushToStartToken: "")
    }

    static func activity(_ matchId: String, timestamp: Int64, state: UnifiedDisplayStateFactory = .live) -> ActivitySnapshot {
        let content = state == .ended
            ? Sample.state(matchId, updatedAt: timestamp, score: "181/4", phase: .ended, result: "India won by 6 wickets")
            : Sample.state(matchId, updatedAt: timestamp)
        return ActivitySnapshot(
            matchId: matchId, activityId: "a-\(matchId)", state: state == .ended ? "ended" : "active", timestamp: timestamp,
            contentState: content, updateCount: 2, token: nil, startedByPush: true)
    }

    enum UnifiedDisplayStateFactory { case live, ended }

    @Test func everyStableIdCarriesTheContentState() {
        let html = PreviewPage.render(deviceId: "d1", matchId: nil, snapshot: Self.snapshot([Self.activity("m1", timestamp: 200, state: .ended)]))
        for id in Self.ids { #expect(html.contains("id=\"\(id)\""), "missing #\(id)") }
        #expect(html.contains(">IND 181/4 (12.3)<"))
        #expect(html.contains(">AUS 180/7 (20)<"))
        #expect(html.contains(">IND need 45 off 30<"))
        #expect(html.contains(">IND 181/4<"))
        #expect(html.contains(">12.3 · 6.96<"))
        #expect(html.contains(">India won by 6 wickets<"))
        #expect(html.contains(">ended<"))
        #expect(html.contains("Rohit Sharma* 45 (32)") && html.contains("Pat Cummins 2-24 (3.4)") && html.contains("1 4 W • 1wd 6"))
        #expect(html.contains("fetch('/devices/' + encodeURIComponent(PREVIEW.device)"))
        #expect(html.contains("setInterval(tick, 1000)"))
        #expect(html.contains("const PREVIEW = {\"device\":\"d1\",\"match\":null}"))
    }

    @Test func picksTheAskedMatchElseTheNewest() {
        let snapshot = Self.snapshot([Self.activity("m1", timestamp: 100), Self.activity("m2", timestamp: 300)])
        #expect(PreviewPage.pick(snapshot, matchId: nil)?.matchId == "m2")
        #expect(PreviewPage.pick(snapshot, matchId: "m1")?.matchId == "m1")
        #expect(PreviewPage.pick(snapshot, matchId: "zz") == nil)
        #expect(PreviewPage.pick(nil, matchId: nil) == nil)
    }

    @Test func withoutAnActivityThePageSaysSo() {
        let html = PreviewPage.render(deviceId: "d1", matchId: "m1", snapshot: Self.snapshot([]))
        #expect(html.contains(">No Live Activity yet<"))
        for id in Self.ids { #expect(html.contains("id=\"\(id)\"")) }
    }

    @Test func textIsEscaped() {
        var activity = Self.activity("m1", timestamp: 1)
        activity.contentState.lockScreen.headline = "<script>alert(1)</script> & \"x\""
        let html = PreviewPage.render(deviceId: "d<1>", matchId: "m1", snapshot: Self.snapshot([activity]))
        #expect(!html.contains("<script>alert(1)"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;"))
        #expect(html.contains("d&lt;1&gt;"))
        let script = PreviewPage.render(deviceId: "d1", matchId: "</script>", snapshot: Self.snapshot([activity]))
        #expect(!script.contains("\"</script>"))
    }

    @Test func theRouteServesHTML() async throws {
        let harness = await Harness(devices: 2)
        var router = Router()
        SimulatorRoutes.install(on: &router, fleet: harness.fleet, intake: harness.intake, mock: harness.mock)
        let device = harness.fleet.devices[1]
        _ = try await harness.start(device, Sample.state(updatedAt: 100, score: "55/1"))
        let response = await router.respond(to: HTTPRequest(method: .get, path: "/preview?device=\(device.deviceId)&match=m1"))
        #expect(response.status == 200 && response.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(response.bodyText.contains(">IND 55/1 (12.3)<"))
        #expect(await router.respond(to: HTTPRequest(method: .get, path: "/preview?device=ghost")).status == 404)
        #expect(await router.respond(to: HTTPRequest(method: .get, path: "/preview")).status == 200)
    }
}
