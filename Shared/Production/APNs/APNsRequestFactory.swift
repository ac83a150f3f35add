import HTTP2

/// Builds the HTTP/2 request for one push: path `/3/device/<token>`, `authorization`,
/// `apns-push-type`, `apns-topic`, `apns-priority`, `apns-expiration`, `apns-id`, `apns-collapse-id`.
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
        type == .alert ? "alert" : "liveactivity"
    }

    /// `apns-topic` of a push type.
    public func topic(for type: APNsPushType) -> String {
        type == .alert ? bundleID : liveActivityTopic
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
}
