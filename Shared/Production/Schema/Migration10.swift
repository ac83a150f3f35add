import Postgres

extension SightscreenMigrations {
    /// Version 10 (issue 19): which devices use broadcast channels, and how each activity is delivered.
    ///
    /// - `devices.os_version` (as the app reports it, e.g. "18.2") and `devices.channel_capable`: iOS 18 or later
    ///   and an app build that subscribes to channels. Only capable devices are started on a channel.
    /// - `live_activities.delivery` ('token' | 'channel') and `live_activities.channel_id`: a channel activity has
    ///   no update token (ActivityKit takes one push type), so it is never a token target of the fan-out; it gets
    ///   the match's broadcasts. Existing rows are token rows.
    public static let channelDelivery = PostgresMigration(
        version: 10, name: "channel delivery",
        sql: """
            ALTER TABLE devices ADD COLUMN os_version text, ADD COLUMN channel_capable boolean NOT NULL DEFAULT false;
            ALTER TABLE live_activities
                ADD COLUMN delivery text NOT NULL DEFAULT 'token'
                    CONSTRAINT live_activities_delivery_check CHECK (delivery IN ('token', 'channel')),
                ADD COLUMN channel_id text,
                ADD CONSTRAINT live_activities_channel_shape CHECK (
                    (delivery = 'token' AND channel_id IS NULL)
                    OR (delivery = 'channel' AND channel_id IS NOT NULL AND update_token IS NULL)) NOT VALID;
            -- NOT VALID: checked for every row written from now on; the existing rows hold it by the defaults just
            -- added ('token', NULL), so no scan of the table under an exclusive lock.
            """)
}
