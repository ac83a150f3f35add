import HTTPServer

/// Admin only (`cognito:groups` contains "admin"): pipeline status, the operator's view of a match, and the fake feed's
/// replay controls.
enum AdminRoutes {
    static func routes(_ service: APIService) -> [APIRoute] {
        [
            APIRoute(method: .get, pattern: "/admin/pipeline") { request in
                _ = try await service.authenticator.admin(request)
                return .json(try await service.pipeline.status())
            },
            APIRoute(method: .get, pattern: "/admin/matches/:matchId/status") { request in
                _ = try await service.authenticator.admin(request)
                let matchId = try InputRules.pathId(request, "matchId")
                return .json(try await service.matchReports.report(matchId: matchId))
            },
            APIRoute(method: .get, pattern: "/admin/replay") { request in
                _ = try await service.authenticator.admin(request)
                return try await service.replay.forward(method: "GET", path: "/admin/matches", body: [])
            },
            APIRoute(method: .post, pattern: "/admin/replay/:matchId/:action") { request in
                _ = try await service.authenticator.admin(request)
                let matchId = try InputRules.pathId(request, "matchId")
                let action = try request.parameter("action")
                guard ReplayProxy.actions.contains(action) else {
                    throw HTTPError.notFound("no replay action \(action); use start, pause, resume, reset or seek")
                }
                if !request.body.isEmpty { _ = try request.decode(JSONObject.self) }
                return try await service.replay.forward(method: "POST", path: "/admin/matches/\(matchId)/\(action)", body: request.body)
            },
        ]
    }

    /// Any JSON object (the replay body is checked upstream; here only that it is an object).
    struct JSONObject: Decodable {
        init(from decoder: Decoder) throws { _ = try decoder.container(keyedBy: AnyKey.self) }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
