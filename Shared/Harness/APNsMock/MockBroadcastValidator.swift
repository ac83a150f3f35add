import APNs
import FastJSON
import HTTP2
import HTTP2Server
import Runtime

/// Apple's checks of `POST /4/broadcasts/apps/<bundle>` (the push listener), in this order:
/// 1. DuplicateHeaders, MethodNotAllowed, the provider token, the bundle (TopicDisallowed for a push-type
///    suffix, TopicMismatch for another app), the capability (FeatureNotEnabled), `apns-request-id` (BadMessageId);
/// 2. MissingChannelId, BadChannelId (not base64), MissingPushType, InvalidPushType (`liveactivity` in any case);
/// 3. BadExpirationDate (missing, or not an integer ≥ 0), BadPriority (1, 5 or 10, required);
/// 4. ChannelNotRegistered (no such channel, or deleted), BadExpirationDate again for a non-zero expiration on a
///    No Message Stored channel;
/// 5. PayloadEmpty, PayloadTooLarge (over 5,120 bytes), BadRequestPayload (not JSON), then the Live Activity body
///    checks (`event` update or end only: a broadcast cannot start an activity).
struct MockBroadcastValidator: Sendable {
    enum Verdict {
        case accept(channelId: String, environment: APNsServerEnvironment, requestId: String, priority: Int, expiration: Int64)
        case reject(APNsReason, detail: String?)
    }

    static let pathPrefix = "/4/broadcasts/apps/"
    static let maximumPayload = 5120

    let bundleID: String
    let channels: MockChannelStore
    let validator: MockAPNsValidator

    func validate(_ request: HTTP2ServerRequest, nowSeconds: Int64, broadcastDisabled: Bool) -> Verdict {
        for name in ["apns-channel-id", "apns-request-id", "apns-priority", "apns-push-type", "apns-expiration", "authorization"]
        where request.count(of: name) > 1 {
            return .reject(.duplicateHeaders, detail: name)
        }
        guard request.method == "POST" else { return .reject(.methodNotAllowed, detail: nil) }
        if let reason = validator.checkAuthorization(request.header("authorization"), now: nowSeconds) { return .reject(reason, detail: nil) }
        let bundle = String(request.path.dropFirst(Self.pathPrefix.count))
        if bundle.contains(".push-type.") { return .reject(.topicDisallowed, detail: nil) }
        guard bundle == bundleID else { return .reject(.topicMismatch, detail: nil) }
        guard !broadcastDisabled else { return .reject(.featureNotEnabled, detail: nil) }
        var requestId = request.header("apns-request-id") ?? ""
        if requestId.isEmpty {
            requestId = APNsID.derive(jobID: "mock-broadcast-\(request.connectionID)-\(request.streamID)", token: String(nowSeconds))
        } else if !APNsID.isValid(requestId) {
            return .reject(.badMessageId, detail: nil)
        }
        guard let channelId = request.header("apns-channel-id"), !channelId.isEmpty else { return .reject(.missingChannelId, detail: nil) }
        guard APNsChannelID.isWellFormed(channelId) else { return .reject(.badChannelId, detail: nil) }
        guard let pushType = request.header("apns-push-type") else { return .reject(.missingPushType, detail: nil) }
        guard pushType.lowercased() == "liveactivity" else { return .reject(.invalidPushType, detail: nil) }
        guard let expirationText = request.header("apns-expiration"), let expiration = Int64(expirationText), expiration >= 0 else {
            return .reject(.badExpirationDate, detail: nil)
        }
        guard let priorityText = request.header("apns-priority"), let priority = Int(priorityText), [1, 5, 10].contains(priority) else {
            return .reject(.badPriority, detail: nil)
        }
        guard let (policy, environment) = channels.lookup(channelId) else { return .reject(.channelNotRegistered, detail: nil) }
        if policy == .noMessageStored && expiration != 0 {
            return .reject(.badExpirationDate, detail: "a No Message Stored channel takes apns-expiration 0 only")
        }
        guard !request.body.isEmpty else { return .reject(.payloadEmpty, detail: nil) }
        guard !request.bodyTruncated, request.body.count <= Self.maximumPayload else { return .reject(.payloadTooLarge, detail: nil) }
        if let problem = MockAPNsPayloadCheck.problem(in: request.body, liveActivity: true) {
            return .reject(problem == MockAPNsPayloadCheck.notJSON ? .badRequestPayload : .unknown("PayloadInvalid"), detail: problem)
        }
        if MockAPNsPayloadCheck.event(in: request.body) == "start" {
            return .reject(.unknown("PayloadInvalid"), detail: "a broadcast cannot start an activity (event start)")
        }
        return .accept(channelId: channelId, environment: environment, requestId: requestId.lowercased(), priority: priority,
                       expiration: expiration)
    }
}
