import HTTP2

/// Builds the HTTP/2 requests APNs takes: one push (path `/3/device/<token>`, `authorization`,
/// `apns-push-type`, `apns-topic`, `apns-priority`, `apns-expiration`, `apns-id`, `apns-collapse-id`), one
/// broadcast (`/4/broadcasts/apps/<bundle>`), and the channel management requests (`/1/apps/<bundle>/…`).
public struct APNsRequestFactory: Sendable {
    public let bundleID: String
    /// `apns-topic` of Live Activity pushes, built once.
    private let liveActivityTopic: String

    public init(bundleID: String) {
        self.bundleID = bundleID
        liveActivityTopic = bundleID + ".push-type.liveactivity"
    }

    /// `apns-push-type` of a push type.
    public static func pushType(for type: APNsPushType) -> String {
        switch type {
        case .liveActivity: "liveactivity"
        case .alert: "alert"
        case .background: "background"
        }
    }

    /// `apns-topic` of a push type.
    public func topic(for type: APNsPushType) -> String {
        type == .liveActivity ? liveActivityTopic : bundleID
    }

    /// The request. `expiration` nil leaves the header out (APNs' storage policy applies).
    public func request(_ push: APNsPush, authorization: String) -> HTTP2Request {
        var headers = [
            // The token value changes at most every 20–60 minutes: let HPACK index it.
            HTTP2Header("authorization", authorization),
            HTTP2Header("apns-push-type", Self.pushType(for: push.type)),
            HTTP2Header("apns-topic", topic(for: push.type)),
            HTTP2Header("apns-priority", String(push.priority)),
            HTTP2Header("apns-id", push.apnsID, sensitive: true),
        ]
        if let expiration = push.expiration { headers.append(HTTP2Header("apns-expiration", String(expiration))) }
        if let collapseID = push.collapseID { headers.append(HTTP2Header("apns-collapse-id", collapseID, sensitive: true)) }
        headers.append(HTTP2Header("content-type", "application/json"))
        return HTTP2Request(method: "POST", path: "/3/device/" + push.device.token, headers: headers, body: push.payload)
    }

    // MARK: - Broadcast channels

    /// The broadcast: `POST /4/broadcasts/apps/<bundle>` with `apns-channel-id`, `apns-push-type: liveactivity`,
    /// `apns-priority`, `apns-expiration` (always) and `apns-request-id`. No `apns-topic`: the path names the app.
    public func broadcastRequest(_ broadcast: APNsBroadcast, authorization: String) -> HTTP2Request {
        HTTP2Request(method: "POST", path: "/4/broadcasts/apps/" + bundleID, headers: [
            HTTP2Header("authorization", authorization),
            HTTP2Header("apns-channel-id", broadcast.channel.rawValue),
            HTTP2Header("apns-push-type", "liveactivity"),
            HTTP2Header("apns-priority", String(broadcast.priority)),
            HTTP2Header("apns-expiration", String(broadcast.expiration)),
            HTTP2Header("apns-request-id", broadcast.requestID, sensitive: true),
            HTTP2Header("content-type", "application/json"),
        ], body: broadcast.payload)
    }

    /// Create: `POST /1/apps/<bundle>/channels` with `{"message-storage-policy": N, "push-type": "LiveActivity"}`.
    public func createChannelRequest(storagePolicy: APNsChannelStoragePolicy, requestID: String, authorization: String) -> HTTP2Request {
        HTTP2Request(method: "POST", path: channelsPath, headers: managementHeaders(requestID: requestID, authorization: authorization)
            + [HTTP2Header("content-type", "application/json")],
            body: Array(#"{"message-storage-policy":\#(storagePolicy.rawValue),"push-type":"LiveActivity"}"#.utf8))
    }

    /// Read: `GET /1/apps/<bundle>/channels` with the channel in the `apns-channel-id` header.
    public func readChannelRequest(_ channel: APNsChannelID, requestID: String, authorization: String) -> HTTP2Request {
        HTTP2Request(method: "GET", path: channelsPath, headers: managementHeaders(requestID: requestID, authorization: authorization)
            + [HTTP2Header("apns-channel-id", channel.rawValue)])
    }

    /// Delete: `DELETE /1/apps/<bundle>/channels` with the channel in the `apns-channel-id` header.
    public func deleteChannelRequest(_ channel: APNsChannelID, requestID: String, authorization: String) -> HTTP2Request {
        HTTP2Request(method: "DELETE", path: channelsPath, headers: managementHeaders(requestID: requestID, authorization: authorization)
            + [HTTP2Header("apns-channel-id", channel.rawValue)])
    }

    /// List: `GET /1/apps/<bundle>/all-channels` (not `/channels`).
    public func listChannelsRequest(requestID: String, authorization: String) -> HTTP2Request {
        HTTP2Request(method: "GET", path: "/1/apps/" + bundleID + "/all-channels",
                     headers: managementHeaders(requestID: requestID, authorization: authorization))
    }

    private var channelsPath: String { "/1/apps/" + bundleID + "/channels" }

    private func managementHeaders(requestID: String, authorization: String) -> [HTTP2Header] {
        [HTTP2Header("authorization", authorization), HTTP2Header("apns-request-id", requestID, sensitive: true)]
    }
}
