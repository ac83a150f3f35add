/// The answer to one push to one target: one attempt (and one more after a new provider token).
public struct APNsOutcome: Sendable, Equatable {
    public var device: APNsDeviceToken
    /// What to do now: `.delivered`, `.tokenInvalid`, `.permanentFailure`, or `.retry` /
    /// `.regenerateJWTAndRetry` for the caller to retry.
    public var action: APNsAction
    /// HTTP status, nil when no answer arrived.
    public var status: Int?
    public var reason: APNsReason?
    /// The `apns-id` sent (echoed by APNs).
    public var apnsID: String
    /// With 410: when APNs learned the token was invalid, Unix epoch milliseconds.
    public var apnsTimestamp: Int64?
    /// Requests sent for this push.
    public var attempts: Int
    /// Transport error text when there was no answer.
    public var transportError: String?
    /// Time from the first attempt to the final answer.
    public var latency: Duration

    public init(
        device: APNsDeviceToken, action: APNsAction, status: Int?, reason: APNsReason?, apnsID: String,
        apnsTimestamp: Int64? = nil, attempts: Int, transportError: String? = nil, latency: Duration = .zero
    ) {
        self.device = device
        self.action = action
        self.status = status
        self.reason = reason
        self.apnsID = apnsID
        self.apnsTimestamp = apnsTimestamp
        self.attempts = attempts
        self.transportError = transportError
        self.latency = latency
    }
}
