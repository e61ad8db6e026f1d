-- name: mqtt_integrations
-- Every ChirpStack integration with an MQTT broker to consume.
SELECT id, token_hash, mqtt_url, mqtt_topic, mqtt_client_id
  FROM integrations
 WHERE kind = 'chirpstack' AND mqtt_url IS NOT NULL
 ORDER BY id
