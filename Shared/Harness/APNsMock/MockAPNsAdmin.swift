import APNs
import Foundation
import HTTP2
import HTTP2Server
import Synchronization
import Runtime

/// A weak, lock-protected reference to the mock's HTTP/2 server (the request handler needs it and
/// the server owns the handler).
final class LockedServer: Sendable {
    private struct Weak: @unchecked Sendable {
        // Thread safety: only read and written under `reference`'s lock.
        weak var server: HTTP2Server?
    }
    private let reference = LockedValue(Weak())

    func set(_ server: HTTP2Server) { reference.withLock { $0.server = server } }
    var value: HTTP2Server? { reference.withLock { $0.server } }
}

/// The control API, served on the push listener under `/mock/` (no JWT needed):
/// - `GET /mock/counters` → `MockAPNsCounters`
/// - `POST /mock/unregistered` `{"token": "…", "timestamp": ms?}` → later pushes to it get 410
/// - `GET /mock/faults`, `POST /mock/faults` `MockAPNsFaults` JSON (missing fields = off)
/// - `GET /mock/deliveries?token=…&since=SEQ&limit=N` → recorded `MockAPNsDelivery` list, oldest first (all tokens
///   when no token; only those with `sequence` > SEQ when given; at most N when given)
/// - `GET /mock/refusals?token=…&since=SEQ&limit=N` → recorded `MockAPNsRefusal` list (410s and injected faults after the
///   request was read), oldest first, numbered from the same sequence as the deliveries
/// - `GET /mock/repeats` → every `MockAPNsRepeat` (a recorded device push accepted for a token that had one before, with
///   the token's first), in the repeats' order
/// - `GET /mock/channels` → every `MockAPNsChannel`
/// - `POST /mock/channels/subscribe` / `unsubscribe` `{"channelId": "…", "subscriber": "…"}` → 204 (404 for an unknown channel)
/// - `POST /mock/channels/subscribers` `{"channelId": "…", "count": N}` → counted-only subscribers (benchmarks)
/// - `POST /mock/channels/delete` `{"channelId": "…"}` → deleted behind its owner's back
/// - `GET /mock/broadcasts?channel=…&since=SEQ&limit=N` → recorded `MockAPNsBroadcast` list, oldest first
/// - `POST /mock/reset` → clears everything but the channels and their subscribers
enum MockAPNsAdmin {
    private struct ChannelBody: Decodable {
        var channelId: String
        var subscriber: String?
        var count: Int?
    }

    static func handle(_ request: HTTP2ServerRequest, state: MockAPNsState, channels: MockChannelStore, server: LockedServer)
        -> HTTP2ServerResponse
    {
        let parts = request.path.split(separator: "?", maxSplits: 1)
        let path = String(parts.first ?? "")
        let query = parts.count > 1 ? String(parts[1]) : ""
        switch (request.method, path) {
        case ("GET", "/mock/counters"):
            return json(counters(state: state, channels: channels, server: server))
        case ("GET", "/mock/channels"):
            return json(channels.channels())
        case ("POST", "/mock/channels/subscribe"), ("POST", "/mock/channels/unsubscribe"), ("POST", "/mock/channels/subscribers"),
             ("POST", "/mock/channels/delete"):
            guard let body = try? JSONDecoder().decode(ChannelBody.self, from: Data(request.body)) else {
                return error(400, "expected {\"channelId\": \"…\", …}")
            }
            let known: Bool
            switch path {
            case "/mock/channels/delete":
                known = channels.delete(body.channelId, environment: nil)
            case "/mock/channels/subscribers":
                guard let count = body.count else { return error(400, "expected a count") }
                known = channels.setCountedSubscribers(count, of: body.channelId)
            default:
                guard let subscriber = body.subscriber, !subscriber.isEmpty else { return error(400, "expected a subscriber") }
                known = path.hasSuffix("/subscribe")
                    ? channels.subscribe(subscriber, to: body.channelId) : channels.unsubscribe(subscriber, from: body.channelId)
            }
            return known ? HTTP2ServerResponse(status: 204) : error(404, "no channel \(body.channelId)")
        case ("GET", "/mock/broadcasts"):
            let parameters = queryParameters(query)
            guard let (since, limit) = page(parameters) else { return error(400, "since must be an integer and limit a positive integer") }
            return json(channels.broadcasts(channel: parameters["channel"]?.removingPercentEncoding, since: since, limit: limit))
        case ("POST", "/mock/unregistered"):
            struct Body: Decodable {
                var token: String
                var timestamp: Int64?
            }
            guard let body = try? JSONDecoder().decode(Body.self, from: Data(request.body)) else {
                return error(400, "expected {\"token\": \"…\"}")
            }
            state.markUnregistered(body.token, since: body.timestamp ?? Int64(Date().timeIntervalSince1970 * 1000))
            return HTTP2ServerResponse(status: 204)
        case ("GET", "/mock/faults"):
            return json(state.faults)
        case ("POST", "/mock/faults"):
            guard let faults = try? JSONDecoder().decode(MockAPNsFaults.self, from: Data(request.body)) else {
                return error(400, "expected a faults object")
            }
            apply(faults, state: state, channels: channels, server: server)
            return json(faults)
        case ("GET", "/mock/deliveries"):
            let parameters = queryParameters(query)
            guard let (since, limit) = page(parameters) else { return error(400, "since must be an integer and limit a positive integer") }
            return json(state.deliveries(token: parameters["token"], since: since, limit: limit))
        case ("GET", "/mock/refusals"):
            let parameters = queryParameters(query)
            guard let (since, limit) = page(parameters) else { return error(400, "since must be an integer and limit a positive integer") }
            return json(state.refusals(token: parameters["token"], since: since, limit: limit))
        case ("GET", "/mock/repeats"):
            return json(state.repeats())
        case ("POST", "/mock/reset"):
            apply(MockAPNsFaults(), state: state, channels: channels, server: server, reset: true)
            return HTTP2ServerResponse(status: 204)
        default:
            return error(404, "unknown control path \(path)")
        }
    }

    /// `since` (default 0) and `limit` (default all) of a log query; nil when either is not a (positive) integer.
    static func page(_ parameters: [String: String]) -> (since: Int, limit: Int)? {
        let since = parameters["since"].flatMap { Int($0) }
        let limit = parameters["limit"].flatMap { Int($0) }
        if parameters["since"] != nil && since == nil || parameters["limit"] != nil && (limit ?? 0) < 1 { return nil }
        return (since ?? 0, limit ?? Int.max)
    }

    /// `a=1&b=2` → ["a": "1", "b": "2"] (the values used here are hex tokens and integers: no decoding needed).
    static func queryParameters(_ query: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            result[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return result
    }

    static func apply(_ faults: MockAPNsFaults, state: MockAPNsState, channels: MockChannelStore, server: LockedServer, reset: Bool = false) {
        if reset {
            state.reset()
            channels.reset()
        }
        state.setFaults(faults)
        server.value?.setGoAwayAfterStreams(faults.goAwayAfterStreams)
        if let streams = faults.maxConcurrentStreams { server.value?.setMaxConcurrentStreams(streams) }
    }

    static func counters(state: MockAPNsState, channels: MockChannelStore, server: LockedServer) -> MockAPNsCounters {
        let counts = state.counts()
        let broadcasts = channels.counts()
        let http = server.value
        var counters = MockAPNsCounters(
            accepted: counts.accepted, rejected: counts.rejected, connections: http?.connectionsAccepted ?? 0, streams: http?.streamsOpened ?? 0,
            goAwaysSent: http?.goAwaysSent ?? 0, peakConcurrentStreams: http?.peakConcurrentStreams ?? 0,
            distinctTokens: counts.distinctTokens, repeatedPushes: counts.repeated, firstAcceptedAt: counts.firstAcceptedAt,
            lastAcceptedAt: counts.lastAcceptedAt)
        counters.backwardsPushes = counts.backwards
        counters.channelRequestsRejected = counts.channelRejected
        counters.byTimestamp = Dictionary(uniqueKeysWithValues: counts.byTimestamp.map { (String($0.key), $0.value) })
        counters.broadcastsAccepted = broadcasts.broadcastsAccepted
        counters.broadcastCopies = broadcasts.broadcastCopies
        counters.repeatedBroadcasts = broadcasts.repeatedBroadcasts
        counters.firstBroadcastAcceptedAt = broadcasts.firstBroadcastAcceptedAt
        counters.lastBroadcastAcceptedAt = broadcasts.lastBroadcastAcceptedAt
        counters.channels = broadcasts.channels
        return counters
    }

    private static func json(_ value: some Encodable) -> HTTP2ServerResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(value)).map { Array($0) } ?? Array("null".utf8)
        return HTTP2ServerResponse(status: 200, headers: [HTTP2Header("content-type", "application/json")], body: body)
    }

    private static func error(_ status: Int, _ message: String) -> HTTP2ServerResponse {
        json(["error": message]).with(status: status)
    }
}

extension HTTP2ServerResponse {
    func with(status: Int) -> HTTP2ServerResponse {
        var copy = self
        copy.status = status
        return copy
    }
}
