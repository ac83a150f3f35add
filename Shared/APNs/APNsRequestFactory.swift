import Contracts
import HTTP2

/// Builds the HTTP/2 request for one push: path `/3/device/<token>`, `authorization`,
/// `apns-push-type`, `apns-topic`, `apns-priority`, `apns-expiration`, `apns-id`, `apns-collapse-id`.
public struct APNsRequestFactory: Sendable {
    public let bundleID: String

    public init(bundleID: String) { self.bundleID = bundleID }

    /// `apns-push-type` for a job kind.
    public static func pushType(for kind: PushKind) -> String {
        kind == .alert ? "alert" : "liveactivity"
    }

    /// `apns-topic` for a job kind.
    public func topic(for kind: PushKind) -> String {
        kind == .alert ? bundleID : bundleID + ".push-type.liveactivity"
    }

    /// The request. `expiration` nil leaves the header out (APNs' storage policy applies).
    public func request(
        token: String, kind: PushKind, payload: [UInt8], priority: Int, expiration: Int64?, apnsID: String,
        collapseID: String? = nil, authorization: String
    ) -> HTTP2Request {
        var headers = [
            // The token value changes at most every 20–60 minutes: let HPACK index it.
            HTTP2Header("authorization", authorization),
            HTTP2Header("apns-push-type", Self.pushType(for: kind)),
            HTTP2Header("apns-topic", topic(for: kind)),
            HTTP2Header("apns-priority", String(priority)),
            HTTP2Header("apns-id", apnsID, sensitive: true),
        ]
        if let expiration { headers.append(HTTP2Header("apns-expiration", String(expiration))) }
        if let collapseID { headers.append(HTTP2Header("apns-collapse-id", collapseID, sensitive: true)) }
        headers.append(HTTP2Header("content-type", "application/json"))
        return HTTP2Request(method: "POST", path: "/3/device/" + token, headers: headers, body: payload)
    }
}
