import Runtime
import APNs
import HTTP2
import HTTP2Server
import Synchronization

/// Apple's checks in pushy's order (reference apns.md §5.4), adapted to Live Activities: any
/// even-length hex token of 64–200 characters, priority 5 or 10.
final class MockAPNsValidator: Sendable {
    enum Verdict {
        case accept(MockAPNsDelivery)
        case reject(APNsReason, detail: String?)
    }

    let teamID: String
    let bundleID: String
    let keys: [String: APNsSigningKey]
    let validatePayloads: Bool
    /// authorization value → iat, for tokens whose signature already verified.
    private let verified = LockedValue<[String: Int64]>([:])
    /// The last body read and what the payload check made of it. A job sends one body to up to 1,000 tokens, so most
    /// pushes reuse it: one byte comparison instead of a String and a JSON parse per push, and the recorded deliveries
    /// share one payload String (a million of them otherwise hold ~400 MB of copies).
    private let lastPayload = LockedValue<CheckedPayload?>(nil)

    private struct CheckedPayload {
        var body: [UInt8]
        var liveActivity: Bool
        var text: String
        var problem: String?
        var timestamp: Int64?
    }
    static let pushTypes: Set<String> = [
        "alert", "background", "controls", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity",
        "pushtotalk", "widgets",
    ]

    init(teamID: String, bundleID: String, keys: [String: APNsSigningKey], validatePayloads: Bool) {
        self.teamID = teamID
        self.bundleID = bundleID
        self.keys = keys
        self.validatePayloads = validatePayloads
    }

    /// Validates everything except per-token state (unregistered), which the caller checks on
    /// `accept`. `nowMilliseconds` is Unix milliseconds (the delivery's `receivedAt`; JWT checks use seconds).
    func validate(_ request: HTTP2ServerRequest, nowMilliseconds: Int64) -> Verdict {
        let now = nowMilliseconds / 1000
        var apnsID = request.header("apns-id") ?? ""
        if !apnsID.isEmpty {
            guard APNsID.isValid(apnsID) else { return .reject(.badMessageId, detail: nil) }
        } else {
            apnsID = APNsID.derive(jobID: "mock-\(request.connectionID)-\(request.streamID)", token: String(now))
        }
        for name in ["apns-id", "apns-topic", "apns-priority", "apns-push-type", "apns-expiration", "apns-collapse-id", "authorization"]
        where request.count(of: name) > 1 {
            return .reject(.duplicateHeaders, detail: name)
        }
        guard request.method == "POST" else { return .reject(.methodNotAllowed, detail: nil) }
        guard let topic = request.header("apns-topic") else { return .reject(.missingTopic, detail: nil) }
        let collapseID = request.header("apns-collapse-id")
        if let collapseID, collapseID.utf8.count > 64 { return .reject(.badCollapseId, detail: nil) }
        var priority = 10
        if let text = request.header("apns-priority") {
            guard let value = Int(text), value == 5 || value == 10 else { return .reject(.badPriority, detail: nil) }
            priority = value
        }
        let pushType = request.header("apns-push-type") ?? "alert"
        guard Self.pushTypes.contains(pushType) else { return .reject(.invalidPushType, detail: nil) }
        if pushType == "background" && priority != 5 { return .reject(.badPriority, detail: "background pushes take priority 5") }
        let liveActivityTopic = bundleID + ".push-type.liveactivity"
        guard topic == bundleID || topic == liveActivityTopic else { return .reject(.badTopic, detail: nil) }
        if (pushType == "liveactivity") != (topic == liveActivityTopic) { return .reject(.badTopic, detail: "topic does not match push type") }
        var expiration: Int64?
        if let text = request.header("apns-expiration") {
            guard let value = Int64(text), value >= 0 else { return .reject(.badExpirationDate, detail: nil) }
            expiration = value
        }
        let prefix = "/3/device/"
        guard request.path.hasPrefix(prefix) else { return .reject(.badPath, detail: nil) }
        let token = String(request.path.dropFirst(prefix.count))
        guard !token.isEmpty else { return .reject(.missingDeviceToken, detail: nil) }
        let tokenBytes = Array(token.utf8)
        guard tokenBytes.count % 2 == 0, (64...200).contains(tokenBytes.count), tokenBytes.allSatisfy(\.isHexDigit) else {
            return .reject(.badDeviceToken, detail: nil)
        }
        if let reason = checkAuthorization(request.header("authorization"), now: now) { return .reject(reason, detail: nil) }
        guard !request.body.isEmpty else { return .reject(.payloadEmpty, detail: nil) }
        guard !request.bodyTruncated, request.body.count <= 4096 else { return .reject(.payloadTooLarge, detail: nil) }
        let payload = checkedPayload(request.body, liveActivity: pushType == "liveactivity")
        if let problem = payload.problem { return .reject(.unknown("PayloadInvalid"), detail: problem) }
        return .accept(MockAPNsDelivery(
            apnsID: apnsID.lowercased(), token: token, topic: topic, pushType: pushType, priority: priority,
            expiration: expiration, collapseID: collapseID, payload: payload.text,
            receivedAt: nowMilliseconds, connectionID: request.connectionID, apsTimestamp: payload.timestamp))
    }

    /// The body as text and, when payloads are checked, its problem or `aps.timestamp`: the last body's when it is the
    /// same bytes (the check is a function of the bytes and the push type), else checked now.
    private func checkedPayload(_ body: [UInt8], liveActivity: Bool) -> CheckedPayload {
        if let last = lastPayload.withLock({ $0 }), last.liveActivity == liveActivity, last.body == body { return last }
        let checked = validatePayloads ? MockAPNsPayloadCheck.check(body, liveActivity: liveActivity) : (problem: nil, timestamp: nil)
        let payload = CheckedPayload(body: body, liveActivity: liveActivity, text: String(decoding: body, as: UTF8.self),
                                     problem: checked.problem, timestamp: checked.timestamp)
        lastPayload.withLock { $0 = payload }
        return payload
    }

    /// The provider token's problem, if any (`now` in Unix seconds): shared by pushes, broadcasts and channel management.
    func checkAuthorization(_ header: String?, now: Int64) -> APNsReason? {
        guard let header, header.hasPrefix("bearer "), header.utf8.count > 7 else { return .missingProviderToken }
        let issuedAt: Int64
        if let cached = verified.withLock({ $0[header] }) {
            issuedAt = cached
        } else {
            guard let parsed = try? APNsJWT.parse(String(header.dropFirst(7))), parsed.algorithm == "ES256",
                  parsed.teamID == teamID, let key = keys[parsed.keyID], parsed.isSigned(by: key) else {
                return .invalidProviderToken
            }
            issuedAt = parsed.issuedAt
            verified.withLock { cache in
                if cache.count > 1024 { cache.removeAll() }
                cache[header] = parsed.issuedAt
            }
        }
        if now - issuedAt > 3600 { return .expiredProviderToken }
        if issuedAt - now > 300 { return .invalidProviderToken }  // from the future
        return nil
    }
}
