import Contracts
import Foundation
import HTTPServer
import LiveActivities

/// POST/DELETE /user/follow/match, the /matches/:matchId/follow|unfollow aliases, GET /user/follows.
enum FollowRoutes {
    static func routes(_ service: APIService) -> [APIRoute] {
        [
            APIRoute(method: .post, pattern: "/user/follow/match") { request in
                let user = try await service.authenticator.user(request)
                let body = try request.decode(APIBodies.FollowRequest.self)
                if let deviceId = body.deviceId { _ = try InputRules.id(deviceId, field: "deviceId") }
                return try await follow(service, userId: user.userId, matchId: try InputRules.id(body.matchId, field: "matchId"),
                                        deviceId: body.deviceId)
            },
            APIRoute(method: .post, pattern: "/matches/:matchId/follow") { request in
                let user = try await service.authenticator.user(request)
                let matchId = try InputRules.pathId(request, "matchId")
                let deviceId = try request.decodeIfPresent(APIBodies.MatchActionRequest.self)?.deviceId
                if let deviceId { _ = try InputRules.id(deviceId, field: "deviceId") }
                return try await follow(service, userId: user.userId, matchId: matchId, deviceId: deviceId)
            },
            APIRoute(method: .delete, pattern: "/user/follow/match") { request in
                let user = try await service.authenticator.user(request)
                let body = try request.decode(APIBodies.UnfollowRequest.self)
                let matchId = try InputRules.id(body.matchId, field: "matchId")
                if let deviceId = body.deviceId { _ = try InputRules.id(deviceId, field: "deviceId") }
                return try await end(service, userId: user.userId, matchId: matchId, reason: .userUnfollow, actingDevice: body.deviceId)
            },
            APIRoute(method: .post, pattern: "/matches/:matchId/unfollow") { request in
                let user = try await service.authenticator.user(request)
                let matchId = try InputRules.pathId(request, "matchId")
                let deviceId = try request.decodeIfPresent(APIBodies.MatchActionRequest.self)?.deviceId
                if let deviceId { _ = try InputRules.id(deviceId, field: "deviceId") }
                return try await end(service, userId: user.userId, matchId: matchId, reason: .userUnfollow, actingDevice: deviceId)
            },
            APIRoute(method: .get, pattern: "/user/follows") { request in
                let user = try await service.authenticator.user(request)
                let follows = try await service.follows.follows(userId: user.userId)
                return .json(APIBodies.FollowsResponse(follows: follows.map {
                    .init(matchId: $0.matchId, createdAt: ISOTime.string($0.createdAt), expiresAt: $0.expiresAt.map(ISOTime.string))
                }))
            },
        ]
    }

    /// Follows `matchId`; for a live match also queues push-to-start jobs (see `FollowBatcher`). For a live match
    /// and a channel-capable calling device, the answer names the match's broadcast channel in its environment.
    static func follow(_ service: APIService, userId: String, matchId: String, deviceId: String? = nil) async throws -> HTTPResponse {
        let outcome: FollowFlow.FollowOutcome
        let started: [String]
        do {
            switch try await service.followBatcher.follow(userId: userId, matchId: matchId) {
            case .unknownMatch: throw HTTPError.notFound("no match \(matchId)")
            case .followed(let followed, let startedDevices): (outcome, started) = (followed, startedDevices)
            }
        } catch FollowError.startsNotQueued {
            throw HTTPError.unavailable("push jobs could not be queued; retry the follow")
        }
        var channelId: String?
        if outcome.match.isLive, let deviceId {
            channelId = try await service.channels.channelForDevice(matchId: matchId, userId: userId, deviceId: deviceId)
        }
        let response = APIBodies.FollowResponse(
            matchId: matchId, following: true, isLive: outcome.match.isLive, expiresAt: ISOTime.string(outcome.expiresAt),
            startedDevices: started, displayState: outcome.match.isLive ? outcome.match.displayState : nil, channelId: channelId)
        if response.displayState != nil, let stateJSON = outcome.match.displayStateJSON {
            return splicedFollowResponse(response, stateJSON: stateJSON)
        }
        return .json(response)
    }

    /// The follow answer with the display state spliced in as bytes the cache encoded once per state, the rest
    /// written by hand: the same bytes `.json(response)` gives (keys sorted, slashes unescaped), without
    /// `JSONEncoder`'s per-answer cost (encoding was most of a follow's own CPU after the token check).
    static func splicedFollowResponse(_ response: APIBodies.FollowResponse, stateJSON: [UInt8]) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(stateJSON.count + 160 + response.matchId.utf8.count + 16 * response.startedDevices.count)
        JSONBytes.literal("{", &body)
        if let channelId = response.channelId {
            JSONBytes.literal(#""channelId":"#, &body)
            JSONBytes.string(channelId, &body)
            JSONBytes.literal(",", &body)
        }
        JSONBytes.literal(#""displayState":"#, &body)
        body += stateJSON
        JSONBytes.literal(#","expiresAt":"#, &body)
        JSONBytes.string(response.expiresAt, &body)
        JSONBytes.literal(#","following":"#, &body)
        response.following ? JSONBytes.literal("true", &body) : JSONBytes.literal("false", &body)
        JSONBytes.literal(#","isLive":"#, &body)
        response.isLive ? JSONBytes.literal("true", &body) : JSONBytes.literal("false", &body)
        JSONBytes.literal(#","matchId":"#, &body)
        JSONBytes.string(response.matchId, &body)
        JSONBytes.literal(#","startedDevices":["#, &body)
        for (index, device) in response.startedDevices.enumerated() {
            if index > 0 { JSONBytes.literal(",", &body) }
            JSONBytes.string(device, &body)
        }
        JSONBytes.literal("]}", &body)
        return .json(encoded: body)
    }

    /// Ends the caller's activities for the match with `reason` (end pushes first), deletes the follow.
    /// Ends the user's activities of the match (unfollow, dismiss). `actingDevice`, the device the request came from,
    /// ended its own activity already: it gets no background end push.
    static func end(_ service: APIService, userId: String, matchId: String, reason: LiveActivityEndReason, actingDevice: String? = nil)
        async throws -> HTTPResponse
    {
        let outcome: FollowFlow.EndOutcome
        do {
            outcome = try await service.follows.end(
                userId: userId, matchId: matchId, reason: reason, now: service.clock.now(), factory: service.factory, actingDevice: actingDevice
            ) { jobs in
                do { try await service.publisher.publish(jobs) } catch { throw PublishFailure(underlying: error) }
            }
        } catch let failure as PublishFailure {
            service.metrics.jobFailures.increment()
            service.logger.error("end jobs not queued", ["match_id": matchId, "error": String(describing: failure.underlying)])
            throw HTTPError.unavailable("push jobs could not be queued; nothing changed, retry")
        }
        service.metrics.jobsProduced.increment(by: outcome.jobs.count)
        return .json(APIBodies.UnfollowResponse(matchId: matchId, following: false, endedDevices: outcome.endedDevices))
    }

    struct PublishFailure: Error { let underlying: any Error }
}
