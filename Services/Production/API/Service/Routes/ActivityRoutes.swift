import BroadcastChannels
import HTTPServer
import LiveActivities

/// POST /matches/:matchId/activity-token and /matches/:matchId/activity-dismissed.
enum ActivityRoutes {
    static func routes(_ service: APIService) -> [APIRoute] {
        [
            APIRoute(method: .post, pattern: "/matches/:matchId/activity-token") { request in
                let user = try await service.authenticator.user(request)
                let matchId = try InputRules.pathId(request, "matchId")
                let body = try request.decode(APIBodies.ActivityTokenRequest.self)
                let deviceId = try InputRules.id(body.deviceId, field: "deviceId")
                let delivery: LiveActivityStore.ActivityDelivery
                switch (body.token, body.channelId) {
                case (let token?, nil):
                    delivery = .token(try InputRules.apnsToken(token, field: "token"))
                case (nil, let channel?):
                    let channelId = try InputRules.channelId(channel, field: "channelId")
                    // Only a channel of this match that is in use: another match's, or a deleted one, would never
                    // get this match's broadcasts.
                    guard try await service.channels.channels(matchId: matchId).contains(where: { $0.channelId == channelId && $0.state == .active })
                    else {
                        throw HTTPError(status: 409, code: "unknown_channel", message: "\(channelId) is not a broadcast channel of match \(matchId) in use")
                    }
                    delivery = .channel(channelId)
                default:
                    throw HTTPError.invalidBody("exactly one of 'token' (an update token) and 'channelId' (a broadcast channel) is required")
                }
                let outcome = try await service.activities.registerActivity(
                    delivery, userId: user.userId, matchId: matchId, deviceId: deviceId, now: service.clock.now())
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
                let user = try await service.authenticator.user(request)
                let matchId = try InputRules.pathId(request, "matchId")
                let body = try request.decode(APIBodies.DismissRequest.self)
                let deviceId = try InputRules.id(body.deviceId, field: "deviceId")
                return try await FollowRoutes.end(service, userId: user.userId, matchId: matchId, reason: .userDismissed, actingDevice: deviceId)
            },
        ]
    }
}
