import Contracts
import CricsheetReplay
import Foundation
import HTTPServer

/// The admin API under `/admin` (token in `X-Admin-Token` or `Authorization: Bearer …`):
///
/// - `GET  /admin/matches` — every match: id, title, mode, step, position, status, startsAt, live
/// - `GET  /admin/matches/:id` — one of them
/// - `POST /admin/matches/:id/start|pause|resume|reset`
/// - `POST /admin/matches/:id/seek` `{"delivery": N, "phase": "inningsBreak"?}`
/// - `POST /admin/speed` `{"speed": X}` (deliveries per second)
/// - `GET|POST|DELETE /admin/faults` — `POST {"kind": "500"|"429"|"403"|"truncated"|"garbage"|
///   "missing_fields"|"score_backwards", "count": K, "retryAfter": S, "endpoint": "livescores"?}`
/// - `GET  /admin/stats` — requests served per endpoint and the speed
/// - `GET  /admin/timeline` — when each fixture's positions were first served (`ServedPosition`, in serving order)
enum FeedAdminRoutes {
    struct SeekBody: Decodable { var delivery: Int; var phase: String? }
    struct SpeedBody: Decodable { var speed: Double }

    static func install(on router: inout Router, feed: FakeFeed) {
        let token = feed.configuration.adminToken
        func guarded(_ handler: @escaping HTTPHandler) -> HTTPHandler {
            { request in
                let bearer = request.header("authorization").map { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : $0 }
                guard request.header("x-admin-token") == token || bearer == token else {
                    throw HTTPError.unauthorized("admin token required (X-Admin-Token)")
                }
                return try await handler(request)
            }
        }
        router.get("/admin/timeline", guarded { _ in .json(feed.servedPositions) })
        router.get("/admin/matches", guarded { _ in
            .json(feed.fixtureIds.compactMap { summary(feed, $0) })
        })
        router.get("/admin/matches/:id", guarded { request in
            guard let summary = summary(feed, try matchId(request)) else { throw HTTPError.notFound("no such match") }
            return .json(summary)
        })
        for name in ["start", "pause", "resume", "reset"] {
            router.post("/admin/matches/:id/\(name)", guarded { request in
                let id = try matchId(request)
                do throws(FakeFeed.ControlError) {
                    switch name {
                    case "start": try feed.start(id)
                    case "pause": try feed.pause(id)
                    case "resume": try feed.resume(id)
                    default: try feed.reset(id)
                    }
                } catch { throw controlError(error) }
                return .json(summary(feed, id))
            })
        }
        router.post("/admin/matches/:id/seek", guarded { request in
            let id = try matchId(request)
            let body = try request.decode(SeekBody.self)
            var phase: ReplayPosition.Phase?
            if let name = body.phase {
                guard let parsed = ReplayPosition.Phase(rawValue: name) else { throw HTTPError.invalidBody("unknown phase \(name)") }
                phase = parsed
            }
            do throws(FakeFeed.ControlError) { try feed.seek(id, delivery: body.delivery, phase: phase) } catch { throw controlError(error) }
            return .json(summary(feed, id))
        })
        router.post("/admin/speed", guarded { request in
            let body = try request.decode(SpeedBody.self)
            do throws(FakeFeed.ControlError) { try feed.setSpeed(body.speed) } catch { throw controlError(error) }
            return .json(["speed": feed.speed])
        })
        router.get("/admin/faults", guarded { _ in .json(feed.faults.pending) })
        router.post("/admin/faults", guarded { request in
            let fault = try request.decode(FeedFault.self)
            feed.faults.add(fault)
            return .json(feed.faults.pending)
        })
        router.delete("/admin/faults", guarded { _ in
            feed.faults.clear()
            return .noContent
        })
        router.get("/admin/stats", guarded { _ in
            .json(Stats(speed: feed.speed, requests: feed.requestsServed))
        })
    }

    struct Stats: Encodable { var speed: Double; var requests: [String: Int] }

    static func matchId(_ request: HTTPRequest) throws(HTTPError) -> Int {
        guard let id = Int(try request.parameter("id")) else { throw HTTPError.badRequest("match id must be a number") }
        return id
    }

    static func controlError(_ error: FakeFeed.ControlError) -> HTTPError {
        switch error {
        case .unknownMatch: HTTPError.notFound(error.description)
        case .invalidSeek, .invalidSpeed: HTTPError.invalidBody(error.description)
        }
    }

    /// What `/admin/matches` shows for one match.
    struct Summary: Encodable {
        var id: Int
        var title: String
        var mode: String
        var step: Int
        var lastStep: Int
        var deliveries: Int
        var totalDeliveries: Int
        var phase: String
        var startsAt: String
        var live: Bool
    }

    static func summary(_ feed: FakeFeed, _ id: Int) -> Summary? {
        guard let match = feed.match(id) else { return nil }
        let now = feed.clock.now()
        let step = match.step(at: now, speed: feed.speed)
        let position = match.timeline[match.index(ofStep: step)]
        let mode: String = switch match.mode {
        case .scheduled: "scheduled"
        case .running: "running"
        case .paused: "paused"
        case .idle: "idle"
        }
        return Summary(id: id, title: match.match.info.teams.joined(separator: " vs "), mode: mode, step: min(step, match.lastIndex + 1),
                       lastStep: match.lastIndex, deliveries: position.deliveries,
                       totalDeliveries: match.match.totalDeliveries, phase: position.phase.rawValue,
                       startsAt: SportMonksTime.format(match.startsAt),
                       live: match.isListedLive(at: now, speed: feed.speed, lingerSteps: feed.configuration.lingerSteps))
    }
}
