import Contracts
import HTTPServer
import Operations

/// Support's view of a user, a device or a Live Activity (admin only): what each device's Lock Screen was sent, what APNs
/// answered and why it did or did not move (`SupportReport`, from the delivery record). JSON at
/// `/admin/support/users/…`, and a server-rendered page at `/admin/support/view?user=…[&device=…][&match=…]` behind a
/// sign-in page (`/admin/support`) that keeps the admin's token in a `SameSite=Strict` cookie. Every look-up is logged
/// with the admin who asked; tokens only ever appear masked.
enum SupportRoutes {
    static func routes(_ service: APIService) -> [APIRoute] {
        [
            APIRoute(method: .get, pattern: "/admin/support/users/:userId") { request in
                let admin = try await service.authenticator.admin(request)
                let userId = try InputRules.pathId(request, "userId")
                return .json(try await lookUp(service, by: admin.userId, userId: userId, deviceId: nil, matchId: nil))
            },
            APIRoute(method: .get, pattern: "/admin/support/users/:userId/devices/:deviceId") { request in
                let admin = try await service.authenticator.admin(request)
                let userId = try InputRules.pathId(request, "userId")
                let deviceId = try InputRules.pathId(request, "deviceId")
                return .json(try await lookUp(service, by: admin.userId, userId: userId, deviceId: deviceId, matchId: nil))
            },
            APIRoute(method: .get, pattern: "/admin/support/matches/:matchId/users/:userId/devices/:deviceId") { request in
                let admin = try await service.authenticator.admin(request)
                let matchId = try InputRules.pathId(request, "matchId")
                let userId = try InputRules.pathId(request, "userId")
                let deviceId = try InputRules.pathId(request, "deviceId")
                return .json(try await lookUp(service, by: admin.userId, userId: userId, deviceId: deviceId, matchId: matchId))
            },
            APIRoute(method: .get, pattern: "/admin/support") { _ in SupportPage.html(SupportPage.signIn()) },
            APIRoute(method: .get, pattern: "/admin/support/view") { request in
                do {
                    let admin = try await service.authenticator.adminFromHeaderOrCookie(request)
                    let userId = try queryId(request, "user", required: true) ?? ""
                    let deviceId = try queryId(request, "device", required: false)
                    let matchId = try queryId(request, "match", required: false)
                    guard matchId == nil || deviceId != nil else {
                        throw HTTPError(status: 400, code: "invalid_parameter", message: "query parameter 'match' needs 'device' too")
                    }
                    let report = try await lookUp(service, by: admin.userId, userId: userId, deviceId: deviceId, matchId: matchId)
                    return SupportPage.html(SupportPage.report(report))
                } catch let error as HTTPError {
                    return SupportPage.html(SupportPage.failure(error), status: error.status, headers: error.headers)
                }
            },
        ]
    }

    /// The report, or 404 naming what is unknown; logs who asked.
    static func lookUp(_ service: APIService, by admin: String, userId: String, deviceId: String?, matchId: String?) async throws -> SupportReport {
        let scope = matchId != nil ? "activity" : deviceId != nil ? "device" : "user"
        service.logger.info("support look-up", [
            "event": "support_lookup", "admin": admin, "scope": scope, "user_id": userId, "device_id": deviceId ?? "", "match_id": matchId ?? "",
        ])
        service.metrics.supportLookup(scope)
        let reader = service.supportReports
        let report: SupportReport? = switch (deviceId, matchId) {
        case (let device?, let match?): try await reader.activity(matchId: match, userId: userId, deviceId: device)
        case (let device?, nil): try await reader.device(userId: userId, deviceId: device)
        default: try await reader.user(userId)
        }
        guard let report else {
            let what = [matchId.map { "match \($0)" }, "user \(userId)", deviceId.map { "device \($0)" }].compactMap { $0 }.joined(separator: ", ")
            throw HTTPError.notFound("nothing is known of \(what): no device, follow, Live Activity or delivery record")
        }
        return report
    }

    /// An id from the query string (`Identifier`): 400 when malformed, or missing and required.
    static func queryId(_ request: HTTPRequest, _ name: String, required: Bool) throws(HTTPError) -> String? {
        guard let value = request.query[name], !value.isEmpty else {
            if required { throw HTTPError(status: 400, code: "invalid_parameter", message: "query parameter '\(name)' is required") }
            return nil
        }
        guard Identifier.isValid(value) else {
            throw HTTPError(status: 400, code: "invalid_parameter", message: "query parameter '\(name)' must be \(Identifier.rule)")
        }
        return value
    }
}
