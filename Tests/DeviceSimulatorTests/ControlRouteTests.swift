@testable import DeviceSimulator
import ClientCore
import Foundation
import HTTPServer
import Runtime
import ServiceKit
import Testing

/// The simulator's HTTP API, called through its router.
@Suite(.timeLimit(.minutes(2))) struct ControlRouteTests {
    static func router(_ harness: Harness) -> Router {
        var router = Router()
        OperationsRoutes.install(on: &router, service: "device-sim", readiness: Readiness(), metrics: MetricsRegistry())
        SimulatorRoutes.install(on: &router, fleet: harness.fleet, intake: harness.intake, mock: harness.mock)
        return router
    }

    static func call(_ router: Router, _ method: HTTPMethod, _ path: String) async -> HTTPResponse {
        await router.respond(to: HTTPRequest(method: method, path: path))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) throws -> T {
        try JSONDecoder().decode(type, from: Data(response.body))
    }

    @Test func listingsAndStatus() async throws {
        let harness = await Harness(devices: 3)
        let router = Self.router(harness)
        let id = harness.fleet.devices[2].deviceId
        _ = try await harness.start(harness.fleet.devices[2], Sample.state(updatedAt: 100))
        #expect(await Self.call(router, .get, "/health").status == 200)
        let all = try Self.decode([DeviceSnapshot].self, await Self.call(router, .get, "/devices"))
        #expect(all.map(\.deviceId) == harness.fleet.devices.map(\.deviceId))
        #expect(all.allSatisfy { $0.follows == ["m1"] })
        let one = try Self.decode(DeviceSnapshot.self, await Self.call(router, .get, "/devices/\(id)"))
        #expect(one.activities.map(\.matchId) == ["m1"] && one.pushesReceived == 1)
        let status = try Self.decode(FleetStatus.self, await Self.call(router, .get, "/status"))
        #expect(status.devices == 3 && status.activitiesActive == 1 && status.startsReceived == 1 && status.cursor == 1)
        #expect(await Self.call(router, .get, "/devices/nobody").status == 404)
        // The interface's field names are on the wire.
        let text = await Self.call(router, .get, "/devices/\(id)").bodyText
        for key in ["deviceId", "userId", "follows", "activities", "matchId", "state", "timestamp", "contentState", "pushesReceived", "lastEvent"] {
            #expect(text.contains("\"\(key)\""), "missing \(key)")
        }
        let statusText = await Self.call(router, .get, "/status").bodyText
        for key in ["devices", "activitiesActive", "activitiesEnded", "pushesReceived", "startsReceived", "updatesReceived", "endsReceived"] {
            #expect(statusText.contains("\"\(key)\""), "missing \(key)")
        }
    }

    @Test func dismissReportsToTheApiAndUnfollowsLocally() async throws {
        let harness = await Harness(devices: 1)
        let router = Self.router(harness)
        let device = harness.fleet.devices[0]
        #expect(await Self.call(router, .post, "/devices/\(device.deviceId)/dismiss?match=m1").status == 409)
        _ = try await harness.start(device, Sample.state())
        let response = await Self.call(router, .post, "/devices/\(device.deviceId)/dismiss?match=m1")
        #expect(response.status == 200)
        let result = try Self.decode(SimulatedDevice.DismissResult.self, response)
        #expect(result.reported)
        #expect(harness.backend.calls.withLock { $0.dismissals.map(\.matchId) } == ["m1"])
        let snapshot = await device.snapshot()
        #expect(snapshot.follows.isEmpty && snapshot.activities.first?.state == "dismissed")
    }

    @Test func unfollowEndsTheActivityAndFollowComesBack() async throws {
        let harness = await Harness(devices: 1)
        let router = Self.router(harness)
        let device = harness.fleet.devices[0]
        _ = try await harness.start(device, Sample.state())
        let unfollow = try Self.decode(SimulatorRoutes.ActionResult.self, await Self.call(router, .post, "/devices/\(device.deviceId)/unfollow?match=m1"))
        #expect(unfollow.outcome == "confirmed")
        #expect(harness.backend.calls.withLock { $0.unfollows } == ["m1"])
        var snapshot = await device.snapshot()
        #expect(snapshot.follows.isEmpty && snapshot.activities.first?.state != "active")
        let follow = try Self.decode(SimulatorRoutes.ActionResult.self, await Self.call(router, .post, "/devices/\(device.deviceId)/follow?match=m2"))
        #expect(follow.outcome == BellState.following.rawValue)
        snapshot = await device.snapshot()
        #expect(snapshot.follows == ["m2"])
        #expect(await Self.call(router, .post, "/devices/\(device.deviceId)/follow").status == 400)
    }

    @Test func disableLiveActivitiesAndInvalidateToken() async throws {
        let harness = await Harness(devices: 1)
        let router = Self.router(harness)
        let device = harness.fleet.devices[0]
        #expect(await Self.call(router, .post, "/devices/\(device.deviceId)/invalidate-token?match=m1").status == 409)
        let token = try await harness.start(device, Sample.state())
        let invalidated = try Self.decode(
            SimulatorRoutes.InvalidateResult.self, await Self.call(router, .post, "/devices/\(device.deviceId)/invalidate-token?match=m1"))
        #expect(invalidated.token == token)
        #expect(harness.mock.unregistered.withLock { $0 } == [token])
        #expect(await Self.call(router, .post, "/devices/\(device.deviceId)/disable-live-activities").status == 200)
        #expect(!device.kit.enabled)
        #expect(await device.service.bellState(matchId: "m1") == .followingWithWarning)
        #expect(await Self.call(router, .post, "/devices/\(device.deviceId)/enable-live-activities").status == 200)
        #expect(device.kit.enabled)
    }
}
