/// What a sender does with one push after APNs answered (or did not).
public enum APNsAction: String, Sendable, Hashable, CaseIterable {
    /// 200: done.
    case delivered
    /// 410 Unregistered / ExpiredToken, 400 BadDeviceToken: stop using the token (a `TokenInvalid`).
    case tokenInvalid
    /// 429 TooManyRequests / TooManyProviderTokenUpdates, 500, 503, IdleTimeout, connection loss:
    /// send again later with back-off (within the push's expiration).
    case retry
    /// 403 ExpiredProviderToken: mint a new JWT and send again.
    case regenerateJWTAndRetry
    /// Broadcasts and channel management: 400 ChannelNotRegistered / BadChannelId — the channel is gone
    /// (deleted, or never this environment's): create a new one and re-start its subscribers.
    case channelInvalid
    /// Anything else (413 PayloadTooLarge, 400 BadTopic, 403 InvalidProviderToken, …): retrying the
    /// same request cannot help — dead-letter it.
    case permanentFailure

    /// The one mapping from an APNs answer to an action. `status` nil means no answer (connection
    /// lost, timeout): retry.
    public static func classify(status: Int?, reason: APNsReason?) -> APNsAction {
        guard let status else { return .retry }
        if status == 200 { return .delivered }
        switch reason {
        case .unregistered?, .expiredToken?, .badDeviceToken?: return .tokenInvalid
        case .expiredProviderToken?: return .regenerateJWTAndRetry
        case .channelNotRegistered?, .badChannelId?: return .channelInvalid
        case .tooManyRequests?, .tooManyProviderTokenUpdates?, .internalServerError?, .serviceUnavailable?, .shutdown?,
             .idleTimeout?:
            return .retry
        default:
            break
        }
        switch status {
        case 410: return .tokenInvalid
        case 429, 500...599: return .retry
        default: return .permanentFailure
        }
    }
}
