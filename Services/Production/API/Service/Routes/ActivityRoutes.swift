import HTTPServer
import LiveActivities

/// POST /matches/:matchId/activity-token and /matches/:matchId/activity-dismissed.
enum ActivityRoutes {
    static func routes(_ service: APIService) -> [APIRoute] {
        [
            APIRoute(method: .post, pattern: "/matches/:matchId/activity-token") { request in
                let user = try service.authenticator.user(request)
                let matchId = try InputRules.pathId(request, "matchId")
                let body = try request.decode(APIBodies.ActivityTokenRequest.self)
                let token = try InputRules.apnsToken(body.token, field: "token")
                let deviceId = try InputRules.id(body.deviceId, field: "deviceId")
                let outcome = try await service.activities.registerUpdateToken(
                    token, userId: user.userId, matchId: matchId, deviceId: deviceId, now: service.clock.now())
                switch outcome {
                case .active(let rotated):
                    return .json(APIBodies.ActivityTokenResponse(matchId: matchId, deviceId: deviceId, status: "active", rotated: rotated))
                case .closeOfPlay:
                    return .json(APIBodies.ActivityTokenResponse(matchId: matchId, deviceId: deviceId, status: "day_end", rotated: false))
                case .notFollowing:
                    throw HTTPError(
                        status: 409, code: "not_following",
                        message: "no pending or active activity for this device and the user does not follow match \(matchId)")
                }
            },
            APIRoute(method: .post, pattern: "/matches/:matchId/activity-dismissed") { request in
                let user = try service.authenticator.user(request)
                let matchId = try InputRules.pathId(request, "matchId")
                let body = try request.decode(APIBodies.DismissRequest.self)
                _ = try InputRules.id(body.deviceId, field: "deviceId")
                return try await FollowRoutes.end(service, userId: user.userId, matchId: matchId, reason: .userDismissed)
            },
        ]
    }
}
