import ClientCore
import Foundation
import HTTPServer

/// The simulator's HTTP API (see E2E-INTERFACE.md): device listings, totals, the preview page and
/// the control routes that act as the user or the system on one device.
enum SimulatorRoutes {
    /// Adds every route to `router`. `intake` provides the routing totals of `/status`; `mock`
    /// receives token invalidations.
    static func install(on router: inout Router, fleet: DeviceFleet, intake: DeliveryIntake?, mock: (any MockAPNsPort)?) {
        router.get("/devices") { _ in .json(await fleet.snapshots()) }
        router.get("/devices/:deviceId") { request in .json(try await device(request, fleet).snapshot()) }
        router.get("/status") { _ in
            let unrouted = await intake?.unrouted ?? 0
            let cursor = await intake?.cursor ?? 0
            return .json(await fleet.status(unrouted: unrouted, cursor: cursor))
        }
        router.get("/preview") { request in
            let id = request.query["device"].flatMap { $0.isEmpty ? nil : $0 } ?? fleet.devices.first?.deviceId ?? ""
            guard let device = fleet.device(id: id) else {
                return .text("<!doctype html><p>no device \(PreviewPage.escape(id))</p>", status: 404, contentType: "text/html; charset=utf-8")
            }
            let match = request.query["match"].flatMap { $0.isEmpty ? nil : $0 }
            return html(PreviewPage.render(deviceId: id, matchId: match, snapshot: await device.snapshot()))
        }
        router.get("/preview/all") { request in
            let match = request.query["match"].flatMap { $0.isEmpty ? nil : $0 }
            return html(FleetPreviewPage.render(matchId: match, snapshots: await fleet.snapshots()))
        }
        router.get("/preview/all/fragment") { request in
            let match = request.query["match"].flatMap { $0.isEmpty ? nil : $0 }
            return html(FleetPreviewPage.fragment(matchId: match, snapshots: await fleet.snapshots()))
        }
        router.post("/devices/:deviceId/dismiss") { request in
            let device = try device(request, fleet)
            let matchId = try match(request)
            guard let result = await device.dismiss(matchId: matchId) else {
                throw HTTPError(status: 409, code: "no_activity", message: "\(device.deviceId) has no active activity for \(matchId)")
            }
            return .json(result)
        }
        router.post("/devices/:deviceId/unfollow") { request in
            let device = try device(request, fleet)
            let matchId = try match(request)
            let outcome = await device.unfollow(matchId: matchId)
            return .json(ActionResult(deviceId: device.deviceId, matchId: matchId, outcome: outcome == .confirmed ? "confirmed" : "queued"))
        }
        router.post("/devices/:deviceId/follow") { request in
            let device = try device(request, fleet)
            let matchId = try match(request)
            do {
                let bell = try await device.follow(matchId: matchId)
                return .json(ActionResult(deviceId: device.deviceId, matchId: matchId, outcome: bell.rawValue))
            } catch {
                throw HTTPError(status: 502, code: "follow_failed", message: String(describing: error))
            }
        }
        router.post("/devices/:deviceId/disable-live-activities") { request in
            let device = try device(request, fleet)
            await device.setLiveActivitiesEnabled(false)
            return .json(ActionResult(deviceId: device.deviceId, matchId: nil, outcome: "disabled"))
        }
        router.post("/devices/:deviceId/enable-live-activities") { request in
            let device = try device(request, fleet)
            await device.setLiveActivitiesEnabled(true)
            return .json(ActionResult(deviceId: device.deviceId, matchId: nil, outcome: "enabled"))
        }
        router.post("/devices/:deviceId/invalidate-token") { request in
            let device = try device(request, fleet)
            let matchId = try match(request)
            guard let token = device.updateToken(matchId: matchId) else {
                throw HTTPError(status: 409, code: "no_token", message: "\(device.deviceId) has no update token for \(matchId)")
            }
            guard let mock else { throw HTTPError.unavailable("no mock-apns configured") }
            do {
                try await mock.markUnregistered(token: token)
            } catch {
                throw HTTPError(status: 502, code: "mock_apns_failed", message: String(describing: error))
            }
            return .json(InvalidateResult(deviceId: device.deviceId, matchId: matchId, token: token))
        }
    }

    /// The answer of follow, unfollow and the Live Activities switch.
    struct ActionResult: Codable, Sendable, Equatable {
        var deviceId: String
        var matchId: String?
        /// confirmed/queued (unfollow), the bell state (follow), enabled/disabled.
        var outcome: String
    }

    /// The answer of invalidate-token.
    struct InvalidateResult: Codable, Sendable, Equatable {
        var deviceId: String
        var matchId: String
        /// The update token mock-apns now answers 410 for.
        var token: String
    }

    private static func device(_ request: HTTPRequest, _ fleet: DeviceFleet) throws(HTTPError) -> SimulatedDevice {
        let id = try request.parameter("deviceId")
        guard let device = fleet.device(id: id) else { throw HTTPError.notFound("no device \(id)") }
        return device
    }

    private static func match(_ request: HTTPRequest) throws(HTTPError) -> String {
        guard let match = request.query["match"], !match.isEmpty else { throw HTTPError.badRequest("?match=ID is required") }
        return match
    }

    /// A page (or fragment) of HTML, never cached.
    static func html(_ text: String) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [HTTPHeader(name: "Content-Type", value: "text/html; charset=utf-8"), HTTPHeader(name: "Cache-Control", value: "no-store")],
            body: Array(text.utf8))
    }
}
