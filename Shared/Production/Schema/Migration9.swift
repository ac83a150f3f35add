import Postgres

extension SightscreenMigrations {
    /// Version 9 (issue 19): APNs broadcast channels, one per (match, APNs environment).
    ///
    /// `state`: `creating` (a create was sent; `channel_id` unknown until APNs answers — a create that timed out
    /// is found again by listing the app's channels), `active` (usable), `invalid` (APNs said
    /// ChannelNotRegistered / BadChannelId: to be created again), `failed` (the create was refused:
    /// CannotCreateChannelConfig, FeatureNotEnabled, …; tried again after a pause; the match's devices stay on
    /// tokens meanwhile), `deleting` (the match is over: a delete was sent), `deleted`. `generation` counts the
    /// creates of the row (it names each create's `apns-request-id`). `match_ended_at`: when the manager first saw
    /// the match over; the channel is deleted a grace period later.
    public static let broadcastChannels = PostgresMigration(
        version: 9, name: "broadcast channels",
        sql: """
            CREATE TABLE broadcast_channels (
                match_id        text        NOT NULL,
                apns_env        text        NOT NULL CHECK (apns_env IN ('production', 'sandbox')),
                channel_id      text,
                storage_policy  smallint    NOT NULL CHECK (storage_policy IN (0, 1)),
                state           text        NOT NULL
                                CONSTRAINT broadcast_channels_state_check
                                CHECK (state IN ('creating', 'active', 'invalid', 'failed', 'deleting', 'deleted')),
                generation      integer     NOT NULL DEFAULT 1 CHECK (generation >= 1),
                failure_reason  text,
                created_at      timestamptz NOT NULL DEFAULT now(),
                updated_at      timestamptz NOT NULL DEFAULT now(),
                activated_at    timestamptz,
                match_ended_at  timestamptz,
                PRIMARY KEY (match_id, apns_env),
                CONSTRAINT broadcast_channels_id_when_usable CHECK (state NOT IN ('active', 'deleting') OR channel_id IS NOT NULL)
            );
            CREATE UNIQUE INDEX broadcast_channels_channel_id_idx ON broadcast_channels (channel_id) WHERE channel_id IS NOT NULL;
            CREATE INDEX broadcast_channels_open_idx ON broadcast_channels (state, updated_at) WHERE state <> 'deleted';
            """)
}
