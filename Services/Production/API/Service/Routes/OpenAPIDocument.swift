import Foundation

/// The hand-written OpenAPI 3.0 description of every route, body and error (served at /openapi.json).
/// Written separately from the router on purpose: a test checks both list the same routes.
enum OpenAPIDocument {
    /// A documented operation.
    struct Operation {
        var method: String
        var path: String
        var summary: String
        var auth: Auth
        var body: String? = nil
        var bodyRequired = true
        var response: String
        var responseType = "application/json"
        var parameters: [[String: Any]] = []
        var errors: [Int]

        enum Auth { case none, user, admin }
    }

    static var matchId: [String: Any] { pathParameter("matchId", "SportMonks fixture id") }
    static var userId: [String: Any] { pathParameter("userId", "the user's id (the token's sub)") }
    static var deviceId: [String: Any] { pathParameter("deviceId", "identifierForVendor") }

    static func queryId(_ name: String, required: Bool) -> [String: Any] {
        ["name": name, "in": "query", "required": required, "description": "an id: 1–128 characters of A-Z a-z 0-9 . _ : -",
         "schema": ["type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[A-Za-z0-9._:-]+$"]]
    }
    static let userErrors = [400, 401, 413, 429]

    /// Operations that answer without the database or the broker.
    static let standalonePaths: Set<String> = ["/openapi.json", "/health", "/ready", "/metrics"]

    /// Every documented operation; every one that reads or writes PostgreSQL or Kafka may answer 503
    /// while they are unreachable (`APIRoutes.install`).
    static var operations: [Operation] {
        documentedOperations.map { operation in
            var operation = operation
            if !standalonePaths.contains(operation.path), !operation.errors.contains(503) { operation.errors.append(503) }
            return operation
        }
    }

    private static var documentedOperations: [Operation] { [
        Operation(method: "post", path: "/user/follow/match", summary: "Follow a match; a live match also starts a Live Activity on each device",
                  auth: .user, body: "FollowRequest", response: "FollowResponse", errors: userErrors + [404, 503]),
        Operation(method: "delete", path: "/user/follow/match", summary: "Unfollow a match: end pushes to every device, follow deleted",
                  auth: .user, body: "UnfollowRequest", response: "UnfollowResponse", errors: userErrors + [503]),
        Operation(method: "post", path: "/matches/{matchId}/follow", summary: "Follow a match (alias of POST /user/follow/match)",
                  auth: .user, body: "MatchActionRequest", bodyRequired: false, response: "FollowResponse", parameters: [matchId],
                  errors: userErrors + [404, 503]),
        Operation(method: "post", path: "/matches/{matchId}/unfollow", summary: "Unfollow a match (alias of DELETE /user/follow/match)",
                  auth: .user, body: "MatchActionRequest", bodyRequired: false, response: "UnfollowResponse", parameters: [matchId],
                  errors: userErrors + [503]),
        Operation(method: "get", path: "/user/follows", summary: "The caller's follows (sync on launch and login)",
                  auth: .user, response: "FollowsResponse", errors: [401, 429]),
        Operation(method: "post", path: "/matches/{matchId}/activity-token",
                  summary: "Register a running Live Activity by its update token (rotation in place) or its broadcast channel: pending → active",
                  auth: .user, body: "ActivityTokenRequest", response: "ActivityTokenResponse", parameters: [matchId],
                  errors: userErrors + [409]),
        Operation(method: "post", path: "/matches/{matchId}/activity-dismissed",
                  summary: "The user dismissed the Live Activity: treated as an unfollow (end reason user_dismissed)",
                  auth: .user, body: "DismissRequest", response: "UnfollowResponse", parameters: [matchId], errors: userErrors + [503]),
        Operation(method: "post", path: "/devices", summary: "Register or update the caller's device and its APNs tokens",
                  auth: .user, body: "DeviceRequest", response: "DeviceResponse", errors: userErrors),
        Operation(method: "delete", path: "/devices/{deviceId}", summary: "Delete one of the caller's devices",
                  auth: .user, response: "DeleteDeviceResponse", parameters: [pathParameter("deviceId", "identifierForVendor")],
                  errors: [400, 401, 404, 429]),
        Operation(method: "get", path: "/matches", summary: "Schedule cards of one UTC day (today by default)",
                  auth: .user, response: "ScheduleResponse",
                  parameters: [["name": "date", "in": "query", "required": false, "description": "UTC day YYYY-MM-DD",
                                "schema": ["type": "string", "format": "date", "pattern": "^[1-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"]]],
                  errors: [400, 401, 429]),
        Operation(method: "get", path: "/matches/live", summary: "Display states of live matches and the server-driven poll interval",
                  auth: .user, response: "LiveResponse", errors: [401, 429]),
        Operation(method: "get", path: "/matches/{matchId}", summary: "One match: card, display state, whether the caller follows it",
                  auth: .user, response: "MatchResponse", parameters: [matchId], errors: [400, 401, 404, 429]),
        Operation(method: "get", path: "/app/config", summary: "Minimum app version and maintenance mode (no auth)",
                  auth: .none, response: "AppConfig", errors: []),
        Operation(method: "get", path: "/admin/pipeline", summary: "Consumer lag of the service groups and row counts (admin)",
                  auth: .admin, response: "PipelineStatus", errors: [401, 403, 429]),
        Operation(method: "get", path: "/admin/matches/{matchId}/status",
                  summary: "The operator's view of a match: followers, activities, last event, channels, pushes and freshness, lag (admin)",
                  auth: .admin, response: "MatchReport", parameters: [matchId], errors: [400, 401, 403, 429]),
        Operation(method: "get", path: "/admin/support/users/{userId}",
                  summary: "Support's view of a user: devices (tokens masked), each Live Activity's life and deliveries, and why a Lock Screen did or did not move (admin; the look-up is logged)",
                  auth: .admin, response: "SupportReport", parameters: [userId], errors: [400, 401, 403, 404, 429]),
        Operation(method: "get", path: "/admin/support/users/{userId}/devices/{deviceId}",
                  summary: "Support's view of one device of a user (admin; the look-up is logged)",
                  auth: .admin, response: "SupportReport", parameters: [userId, deviceId], errors: [400, 401, 403, 404, 429]),
        Operation(method: "get", path: "/admin/support/matches/{matchId}/users/{userId}/devices/{deviceId}",
                  summary: "Support's view of one Live Activity (admin; the look-up is logged)",
                  auth: .admin, response: "SupportReport", parameters: [matchId, userId, deviceId], errors: [400, 401, 403, 404, 429]),
        Operation(method: "get", path: "/admin/support", summary: "The support page's sign-in (HTML): keeps an admin token in a SameSite cookie",
                  auth: .none, response: "HTML", responseType: "text/html", errors: []),
        Operation(method: "get", path: "/admin/support/view",
                  summary: "The support page (HTML): a user's devices and Live Activities with findings and a delivery timeline (admin: bearer token or the sign-in's cookie)",
                  auth: .admin, response: "HTML", responseType: "text/html",
                  parameters: [queryId("user", required: true), queryId("device", required: false), queryId("match", required: false)],
                  errors: [400, 401, 403, 404, 429]),
        Operation(method: "get", path: "/admin/replay", summary: "The fake feed's matches and replay positions (admin, proxied)",
                  auth: .admin, response: "ReplayAnswer", errors: [401, 403, 429, 502, 503]),
        Operation(method: "post", path: "/admin/replay/{matchId}/{action}",
                  summary: "Replay control of the fake feed, forwarded to fake-sportmonks (admin); seek takes {\"delivery\": N}",
                  auth: .admin, body: "ReplayRequest", bodyRequired: false, response: "ReplayAnswer",
                  parameters: [matchId, ["name": "action", "in": "path", "required": true,
                                         "schema": ["type": "string", "enum": ["start", "pause", "resume", "reset", "seek"]]]],
                  errors: [400, 401, 403, 404, 409, 413, 429, 502, 503]),
        Operation(method: "get", path: "/openapi.json", summary: "This document", auth: .none, response: "OpenAPI", errors: []),
        Operation(method: "get", path: "/health", summary: "Liveness", auth: .none, response: "Health", errors: []),
        Operation(method: "get", path: "/ready", summary: "Readiness (503 lists what is awaited)", auth: .none, response: "Ready", errors: [503]),
        Operation(method: "get", path: "/metrics", summary: "Prometheus metrics", auth: .none, response: "Metrics",
                  responseType: "text/plain", errors: []),
    ] }

    static func pathParameter(_ name: String, _ description: String) -> [String: Any] {
        ["name": name, "in": "path", "required": true, "description": description + "; 1–128 characters of A-Z a-z 0-9 . _ : -",
         "schema": ["type": "string", "minLength": 1, "maxLength": 128, "pattern": "^[A-Za-z0-9._:-]+$"]]
    }

    static let errorDescriptions: [Int: String] = [
        400: "Malformed JSON, a wrong type or an invalid field", 401: "Missing or invalid bearer token", 403: "Admin group required",
        404: "Not found", 409: "Conflict (not_following)", 413: "Body larger than 16 KB", 429: "Rate limited",
        502: "Upstream unreachable", 503: "Temporarily unavailable (the database or broker does not answer, push jobs could not be queued, or not configured); see Retry-After",
    ]

    /// The document as a JSON object.
    static var document: [String: Any] {
        var paths: [String: [String: Any]] = [:]
        for operation in operations {
            var responses: [String: Any] = [:]
            if operation.responseType == "text/plain" || operation.responseType == "text/html" {
                responses["200"] = ["description": "OK", "content": [operation.responseType: ["schema": ["type": "string"]]]]
            } else {
                responses["200"] = ["description": "OK", "content": ["application/json": ["schema": ref(operation.response)]]]
            }
            for status in operation.errors {
                let schema = operation.path == "/ready" && status == 503 ? ref("Ready") : ref("Error")
                // The HTML page answers its errors as HTML too (a browser shows them).
                let content: [String: Any] = operation.responseType == "text/html"
                    ? ["text/html": ["schema": ["type": "string"]]] : ["application/json": ["schema": schema]]
                responses[String(status)] = ["description": errorDescriptions[status] ?? "Error", "content": content]
            }
            if operation.auth != .none || operation.body != nil {
                responses["default"] = ["description": "Any other error", "content": ["application/json": ["schema": ref("Error")]]]
            }
            var entry: [String: Any] = ["summary": operation.summary, "responses": responses,
                                        "operationId": operation.method + operation.path.replacingOccurrences(of: "/", with: "_")]
            if !operation.parameters.isEmpty { entry["parameters"] = operation.parameters }
            if let body = operation.body {
                entry["requestBody"] = ["required": operation.bodyRequired, "content": ["application/json": ["schema": ref(body)]]]
            }
            entry["security"] = operation.auth == .none ? [] : [["bearerAuth": []]]
            paths[operation.path, default: [:]][operation.method] = entry
        }
        return [
            "openapi": "3.0.3",
            "info": ["title": "Sightscreen API", "version": "1.0.0",
                     "description": "The iOS app's server: follows, Live Activity tokens, devices, schedule, live matches. Errors are {error, message}."],
            "servers": [["url": "/"]],
            "paths": paths,
            "components": [
                "securitySchemes": ["bearerAuth": ["type": "http", "scheme": "bearer", "bearerFormat": "JWT (Cognito access token, RS256)"]],
                "schemas": OpenAPISchemas.all,
            ],
        ]
    }

    static func ref(_ name: String) -> [String: Any] { ["$ref": "#/components/schemas/\(name)"] }

    /// The serialized document (built once).
    static let bytes: [UInt8] = Array((try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
}
