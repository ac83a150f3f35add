@testable import DeviceSimulator
import ClientCore
import Contracts
import Foundation
import HTTPServer
import SharedTestSupport
import Testing

/// The fleet preview (`/preview/all`): every device on one page, the alert banner of a priority-10 push, the
/// per-device push timeline and the activities' states — rendered by headless Chromium from device-sim's routes.
@Suite struct FleetPreviewTests {
    @Test("after a wicket: the banner with the dismissal text, the timeline's rows, every device's card, an ended one badged")
    func wicketRaisesTheBannerOnTheFleetPage() async throws {
        // The banner stays up for 10 minutes here: Chromium on a busy machine can take longer than iOS's few seconds
        // to load the page (the expiry itself is tested on a manual clock below).
        let harness = await Harness(devices: 3, bannerSeconds: 600)
        let (watcher, other) = (harness.fleet.devices[0], harness.fleet.devices[1])
        let start = Sample.state(updatedAt: 1_800_000_000)
        let token = try await harness.start(watcher, start)
        _ = try await harness.start(other, start)
        let wicket = Sample.state(updatedAt: 1_800_000_060, score: "88/7")
        let alert = LiveActivityPayload.PushAlert(title: "Wicket!", body: "Kohli c Smith b Cummins 60 (40)")
        let body = try LiveActivityPayload(event: .update, timestamp: 1_800_000_060, contentState: wicket, staleDate: 1_800_001_860,
                                           alert: alert).jsonString()
        harness.mock.deliver(token: token, payload: body, priority: 10, receivedAt: 1_800_000_062_500)
        try await harness.intake.pollOnce()
        let snapshot = await watcher.snapshot()
        #expect(snapshot.banner?.body == "Kohli c Smith b Cummins 60 (40)")
        let latest = try #require(snapshot.recentPushes.first)
        #expect(latest.kind == "update" && latest.via == "token" && latest.priority == 10 && latest.bytes == body.utf8.count)
        #expect(latest.ageMs == 2_500, "accepted 2.5 s after the content's timestamp")
        _ = await other.dismiss(matchId: "m1")

        var router = Router()
        SimulatorRoutes.install(on: &router, fleet: harness.fleet, intake: harness.intake, mock: harness.mock)
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threadCount: 2), router: router, logger: Sample.logger)
        try server.start()
        defer { server.stopInBackground() }
        let dom = try await HeadlessChromium.dom("http://127.0.0.1:\(server.port)/preview/all?match=m1")
        #expect(dom.contains("id=\"banner-\(watcher.deviceId)\""), "the banner is on the page:\n\(dom.prefix(3000))")
        #expect(dom.contains("Kohli c Smith b Cummins 60 (40)") && dom.contains("Wicket!"))
        #expect(dom.contains("IND 88/7 (12.3)"), "the watcher's Lock Screen shows the wicket's state")
        for device in harness.fleet.devices { #expect(dom.contains("id=\"device-\(device.deviceId)\"")) }
        #expect(dom.contains("id=\"timeline-\(watcher.deviceId)\"") && dom.contains("<td>update</td><td>token</td><td>10</td>"))
        #expect(dom.contains("<td>2.5 s</td>"), "the push's age at delivery")
        #expect(dom.contains("class=\"device state-dismissed\" id=\"device-\(other.deviceId)\""), "the dismissed activity is badged")
        #expect(!dom.contains("id=\"banner-\(other.deviceId)\""), "no banner on a device that got no alert")
    }

    @Test("the banner goes once iOS would have hidden it")
    func bannerExpires() async throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_900_000_000))
        let directory = TokenDirectory()
        let device = SimulatedDevice(index: 0, deviceId: "d", userId: "u", api: FakeBackend(), directory: directory, environment: .sandbox,
                                     appVersion: "1.10.0", requestLocally: false, bannerDuration: .seconds(5), clock: clock)
        let start = try LiveActivityPayload.matchStart(state: Sample.state(), timestamp: 1_800_000_000).jsonString()
        _ = await device.receive(payload: start, kind: .pushToStart, priority: 10, acceptedAt: nil)
        #expect(await device.snapshot().banner != nil, "a push-to-start's alert shows")
        clock.advance(by: 4.9)
        #expect(await device.snapshot().banner != nil)
        clock.advance(by: 0.2)
        #expect(await device.snapshot().banner == nil, "gone after 5 s")
        #expect(await device.snapshot().recentPushes.map(\.kind) == ["start"], "the timeline keeps it")
    }
}
