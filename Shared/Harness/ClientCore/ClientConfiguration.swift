/// Settings of one app instance, as a plain value.
public struct ClientConfiguration: Sendable, Equatable {
    public var identity: DeviceIdentity
    /// Retries for token posts, device registration and dismissal reports.
    public var retry: RetryPolicy
    /// When following a live match (the answer carries a display state), also call
    /// `Activity.request` locally instead of only waiting for the backend's push-to-start.
    public var requestLocallyOnLiveFollow: Bool
    /// Seconds between periodic stale checks once launched; 0 turns the loop off.
    public var staleCheckInterval: Double

    public init(
        identity: DeviceIdentity, retry: RetryPolicy = RetryPolicy(), requestLocallyOnLiveFollow: Bool = true,
        staleCheckInterval: Double = 60
    ) {
        self.identity = identity
        self.retry = retry
        self.requestLocallyOnLiveFollow = requestLocallyOnLiveFollow
        self.staleCheckInterval = staleCheckInterval
    }
}
