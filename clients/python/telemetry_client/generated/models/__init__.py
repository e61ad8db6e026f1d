""" Contains all the data models used in inputs/outputs """

from .add_member_add_member import AddMemberAddMember
from .add_member_add_member_role import AddMemberAddMemberRole
from .added_member import AddedMember
from .added_member_response import AddedMemberResponse
from .added_member_status import AddedMemberStatus
from .battery import Battery
from .battery_source import BatterySource
from .battery_state import BatteryState
from .device import Device
from .device_alert_cleared_event import DeviceAlertClearedEvent
from .device_alert_cleared_event_data import DeviceAlertClearedEventData
from .device_alert_cleared_event_data_level import DeviceAlertClearedEventDataLevel
from .device_alert_cleared_event_data_op import DeviceAlertClearedEventDataOp
from .device_alert_raised_event import DeviceAlertRaisedEvent
from .device_alert_raised_event_data import DeviceAlertRaisedEventData
from .device_alert_raised_event_data_level import DeviceAlertRaisedEventDataLevel
from .device_alert_raised_event_data_op import DeviceAlertRaisedEventDataOp
from .device_detail import DeviceDetail
from .device_detail_response import DeviceDetailResponse
from .device_detail_status import DeviceDetailStatus
from .device_joined_event import DeviceJoinedEvent
from .device_joined_event_data import DeviceJoinedEventData
from .device_list import DeviceList
from .device_location_event import DeviceLocationEvent
from .device_location_event_data import DeviceLocationEventData
from .device_location_event_data_location import DeviceLocationEventDataLocation
from .device_offline_event import DeviceOfflineEvent
from .device_offline_event_data import DeviceOfflineEventData
from .device_online_event import DeviceOnlineEvent
from .device_online_event_data import DeviceOnlineEventData
from .device_profile import DeviceProfile
from .device_profile_detail import DeviceProfileDetail
from .device_profile_detail_response import DeviceProfileDetailResponse
from .device_profile_list import DeviceProfileList
from .device_status import DeviceStatus
from .device_status_event import DeviceStatusEvent
from .device_status_event_data import DeviceStatusEventData
from .device_status_event_data_battery_type_0 import DeviceStatusEventDataBatteryType0
from .device_status_event_data_battery_type_0_source import DeviceStatusEventDataBatteryType0Source
from .device_status_event_data_battery_type_0_state import DeviceStatusEventDataBatteryType0State
from .device_uplink_event import DeviceUplinkEvent
from .device_uplink_event_data import DeviceUplinkEventData
from .device_uplink_event_data_battery_type_0 import DeviceUplinkEventDataBatteryType0
from .device_uplink_event_data_battery_type_0_source import DeviceUplinkEventDataBatteryType0Source
from .device_uplink_event_data_battery_type_0_state import DeviceUplinkEventDataBatteryType0State
from .device_uplink_event_data_derived import DeviceUplinkEventDataDerived
from .device_uplink_event_data_retained import DeviceUplinkEventDataRetained
from .device_uplink_event_data_values import DeviceUplinkEventDataValues
from .downlink_acknowledged_event import DownlinkAcknowledgedEvent
from .downlink_acknowledged_event_data import DownlinkAcknowledgedEventData
from .downlink_acknowledged_event_data_error_type_1 import DownlinkAcknowledgedEventDataErrorType1
from .downlink_expired_event import DownlinkExpiredEvent
from .downlink_expired_event_data import DownlinkExpiredEventData
from .downlink_expired_event_data_error_type_1 import DownlinkExpiredEventDataErrorType1
from .downlink_failed_event import DownlinkFailedEvent
from .downlink_failed_event_data import DownlinkFailedEventData
from .downlink_failed_event_data_error_type_1 import DownlinkFailedEventDataErrorType1
from .downlink_item import DownlinkItem
from .downlink_item_response import DownlinkItemResponse
from .downlink_item_status import DownlinkItemStatus
from .downlink_nacked_event import DownlinkNackedEvent
from .downlink_nacked_event_data import DownlinkNackedEventData
from .downlink_nacked_event_data_error_type_1 import DownlinkNackedEventDataErrorType1
from .downlink_queued_event import DownlinkQueuedEvent
from .downlink_queued_event_data import DownlinkQueuedEventData
from .downlink_queued_event_data_error_type_1 import DownlinkQueuedEventDataErrorType1
from .downlink_sent_event import DownlinkSentEvent
from .downlink_sent_event_data import DownlinkSentEventData
from .downlink_sent_event_data_error_type_1 import DownlinkSentEventDataErrorType1
from .downlink_submitted_event import DownlinkSubmittedEvent
from .downlink_submitted_event_data import DownlinkSubmittedEventData
from .downlink_submitted_event_data_error_type_1 import DownlinkSubmittedEventDataErrorType1
from .downlink_template import DownlinkTemplate
from .downlink_template_list import DownlinkTemplateList
from .downlink_template_sample_data import DownlinkTemplateSampleData
from .downsampled import Downsampled
from .error_body import ErrorBody
from .error_envelope import ErrorEnvelope
from .execute_multicast_group_body_type_0 import ExecuteMulticastGroupBodyType0
from .execute_multicast_group_body_type_1 import ExecuteMulticastGroupBodyType1
from .execute_result import ExecuteResult
from .execute_result_response import ExecuteResultResponse
from .export_device_telemetry_agg import ExportDeviceTelemetryAgg
from .export_device_telemetry_downsample import ExportDeviceTelemetryDownsample
from .export_device_telemetry_fill import ExportDeviceTelemetryFill
from .export_device_telemetry_format import ExportDeviceTelemetryFormat
from .export_device_telemetry_layout import ExportDeviceTelemetryLayout
from .export_fleet_telemetry_agg import ExportFleetTelemetryAgg
from .export_fleet_telemetry_downsample import ExportFleetTelemetryDownsample
from .export_fleet_telemetry_fill import ExportFleetTelemetryFill
from .export_fleet_telemetry_format import ExportFleetTelemetryFormat
from .export_fleet_telemetry_include_descendants import ExportFleetTelemetryIncludeDescendants
from .export_fleet_telemetry_layout import ExportFleetTelemetryLayout
from .export_fleet_telemetry_network_id_type_1 import ExportFleetTelemetryNetworkIdType1
from .export_fleet_telemetry_online import ExportFleetTelemetryOnline
from .export_fleet_telemetry_site_id_type_1 import ExportFleetTelemetrySiteIdType1
from .features import Features
from .gateway import Gateway
from .gateway_list import GatewayList
from .gateway_response import GatewayResponse
from .get_device_history_agg import GetDeviceHistoryAgg
from .get_device_history_downsample import GetDeviceHistoryDownsample
from .get_device_history_fill import GetDeviceHistoryFill
from .get_fleet_latest_include_descendants import GetFleetLatestIncludeDescendants
from .get_fleet_latest_network_id_type_1 import GetFleetLatestNetworkIdType1
from .get_fleet_latest_online import GetFleetLatestOnline
from .get_fleet_latest_site_id_type_1 import GetFleetLatestSiteIdType1
from .get_open_api_document_response_200 import GetOpenApiDocumentResponse200
from .group_member import GroupMember
from .health import Health
from .health_database import HealthDatabase
from .health_response import HealthResponse
from .health_status import HealthStatus
from .history import History
from .history_point import HistoryPoint
from .history_response import HistoryResponse
from .identity import Identity
from .identity_bound_to import IdentityBoundTo
from .identity_response import IdentityResponse
from .ingest_chirp_stack_body import IngestChirpStackBody
from .ingest_the_things_stack_application_up import IngestTheThingsStackApplicationUp
from .ingest_the_things_stack_application_up_end_device_ids import IngestTheThingsStackApplicationUpEndDeviceIds
from .ingest_the_things_stack_application_up_join_accept import IngestTheThingsStackApplicationUpJoinAccept
from .ingest_the_things_stack_application_up_location_solved import IngestTheThingsStackApplicationUpLocationSolved
from .ingest_the_things_stack_application_up_location_solved_location import IngestTheThingsStackApplicationUpLocationSolvedLocation
from .ingest_the_things_stack_application_up_uplink_message import IngestTheThingsStackApplicationUpUplinkMessage
from .ingest_the_things_stack_application_up_uplink_message_decoded_payload_type_0 import IngestTheThingsStackApplicationUpUplinkMessageDecodedPayloadType0
from .ingest_the_things_stack_application_up_uplink_message_rx_metadata import IngestTheThingsStackApplicationUpUplinkMessageRxMetadata
from .ingest_the_things_stack_application_up_uplink_message_rx_metadata_gateway_ids import IngestTheThingsStackApplicationUpUplinkMessageRxMetadataGatewayIds
from .latest_values import LatestValues
from .latest_values_derived_type_0 import LatestValuesDerivedType0
from .latest_values_list import LatestValuesList
from .latest_values_response import LatestValuesResponse
from .latest_values_retained_type_0 import LatestValuesRetainedType0
from .latest_values_values import LatestValuesValues
from .list_devices_include_descendants import ListDevicesIncludeDescendants
from .list_devices_network_id_type_1 import ListDevicesNetworkIdType1
from .list_devices_online import ListDevicesOnline
from .list_devices_site_id_type_1 import ListDevicesSiteIdType1
from .list_devices_status import ListDevicesStatus
from .list_gateways_include_descendants import ListGatewaysIncludeDescendants
from .list_gateways_network_id_type_1 import ListGatewaysNetworkIdType1
from .list_gateways_online import ListGatewaysOnline
from .list_gateways_site_id_type_1 import ListGatewaysSiteIdType1
from .list_gateways_status import ListGatewaysStatus
from .list_networks_include_descendants import ListNetworksIncludeDescendants
from .list_networks_site_id_type_1 import ListNetworksSiteIdType1
from .location import Location
from .member import Member
from .member_list import MemberList
from .member_result import MemberResult
from .member_result_status import MemberResultStatus
from .member_status import MemberStatus
from .membership import Membership
from .multicast_group import MulticastGroup
from .multicast_group_detail import MulticastGroupDetail
from .multicast_group_detail_response import MulticastGroupDetailResponse
from .multicast_group_list import MulticastGroupList
from .network import Network
from .network_detail import NetworkDetail
from .network_detail_response import NetworkDetailResponse
from .network_device import NetworkDevice
from .network_gateway import NetworkGateway
from .network_list import NetworkList
from .pagination import Pagination
from .profile_field import ProfileField
from .profile_field_data_type import ProfileFieldDataType
from .profile_field_kind import ProfileFieldKind
from .profile_field_measurement_type_1 import ProfileFieldMeasurementType1
from .profile_field_measurement_type_2_type_1 import ProfileFieldMeasurementType2Type1
from .profile_field_measurement_type_3_type_1 import ProfileFieldMeasurementType3Type1
from .profile_field_role_type_1 import ProfileFieldRoleType1
from .profile_field_role_type_2_type_1 import ProfileFieldRoleType2Type1
from .profile_field_role_type_3_type_1 import ProfileFieldRoleType3Type1
from .query_data import QueryData
from .query_page import QueryPage
from .query_series import QuerySeries
from .query_telemetry_query_body import QueryTelemetryQueryBody
from .query_telemetry_query_body_agg_type_0_type_1 import QueryTelemetryQueryBodyAggType0Type1
from .query_telemetry_query_body_device_selection import QueryTelemetryQueryBodyDeviceSelection
from .query_telemetry_query_body_downsample_type_0 import QueryTelemetryQueryBodyDownsampleType0
from .query_telemetry_query_body_fill_type_0 import QueryTelemetryQueryBodyFillType0
from .queued_downlink import QueuedDownlink
from .queued_downlink_response import QueuedDownlinkResponse
from .rate_limit import RateLimit
from .removed_member import RemovedMember
from .removed_member_response import RemovedMemberResponse
from .role import Role
from .send_downlink_body_type_0 import SendDownlinkBodyType0
from .send_downlink_body_type_1 import SendDownlinkBodyType1
from .service_index import ServiceIndex
from .service_index_response import ServiceIndexResponse
from .site import Site
from .site_list import SiteList
from .site_response import SiteResponse
from .stream_latest_include_descendants import StreamLatestIncludeDescendants
from .stream_latest_network_id_type_1 import StreamLatestNetworkIdType1
from .stream_latest_online import StreamLatestOnline
from .stream_latest_site_id_type_1 import StreamLatestSiteIdType1
from .sub_account import SubAccount
from .sub_account_list import SubAccountList
from .sub_account_response import SubAccountResponse
from .sub_account_status import SubAccountStatus
from .validate_member_credentials import ValidateMemberCredentials
from .validated_member import ValidatedMember
from .validated_member_or_validated_user_response import ValidatedMemberOrValidatedUserResponse
from .validated_user import ValidatedUser
from .webhook_test_event import WebhookTestEvent
from .webhook_test_event_data import WebhookTestEventData

__all__ = (
    "AddedMember",
    "AddedMemberResponse",
    "AddedMemberStatus",
    "AddMemberAddMember",
    "AddMemberAddMemberRole",
    "Battery",
    "BatterySource",
    "BatteryState",
    "Device",
    "DeviceAlertClearedEvent",
    "DeviceAlertClearedEventData",
    "DeviceAlertClearedEventDataLevel",
    "DeviceAlertClearedEventDataOp",
    "DeviceAlertRaisedEvent",
    "DeviceAlertRaisedEventData",
    "DeviceAlertRaisedEventDataLevel",
    "DeviceAlertRaisedEventDataOp",
    "DeviceDetail",
    "DeviceDetailResponse",
    "DeviceDetailStatus",
    "DeviceJoinedEvent",
    "DeviceJoinedEventData",
    "DeviceList",
    "DeviceLocationEvent",
    "DeviceLocationEventData",
    "DeviceLocationEventDataLocation",
    "DeviceOfflineEvent",
    "DeviceOfflineEventData",
    "DeviceOnlineEvent",
    "DeviceOnlineEventData",
    "DeviceProfile",
    "DeviceProfileDetail",
    "DeviceProfileDetailResponse",
    "DeviceProfileList",
    "DeviceStatus",
    "DeviceStatusEvent",
    "DeviceStatusEventData",
    "DeviceStatusEventDataBatteryType0",
    "DeviceStatusEventDataBatteryType0Source",
    "DeviceStatusEventDataBatteryType0State",
    "DeviceUplinkEvent",
    "DeviceUplinkEventData",
    "DeviceUplinkEventDataBatteryType0",
    "DeviceUplinkEventDataBatteryType0Source",
    "DeviceUplinkEventDataBatteryType0State",
    "DeviceUplinkEventDataDerived",
    "DeviceUplinkEventDataRetained",
    "DeviceUplinkEventDataValues",
    "DownlinkAcknowledgedEvent",
    "DownlinkAcknowledgedEventData",
    "DownlinkAcknowledgedEventDataErrorType1",
    "DownlinkExpiredEvent",
    "DownlinkExpiredEventData",
    "DownlinkExpiredEventDataErrorType1",
    "DownlinkFailedEvent",
    "DownlinkFailedEventData",
    "DownlinkFailedEventDataErrorType1",
    "DownlinkItem",
    "DownlinkItemResponse",
    "DownlinkItemStatus",
    "DownlinkNackedEvent",
    "DownlinkNackedEventData",
    "DownlinkNackedEventDataErrorType1",
    "DownlinkQueuedEvent",
    "DownlinkQueuedEventData",
    "DownlinkQueuedEventDataErrorType1",
    "DownlinkSentEvent",
    "DownlinkSentEventData",
    "DownlinkSentEventDataErrorType1",
    "DownlinkSubmittedEvent",
    "DownlinkSubmittedEventData",
    "DownlinkSubmittedEventDataErrorType1",
    "DownlinkTemplate",
    "DownlinkTemplateList",
    "DownlinkTemplateSampleData",
    "Downsampled",
    "ErrorBody",
    "ErrorEnvelope",
    "ExecuteMulticastGroupBodyType0",
    "ExecuteMulticastGroupBodyType1",
    "ExecuteResult",
    "ExecuteResultResponse",
    "ExportDeviceTelemetryAgg",
    "ExportDeviceTelemetryDownsample",
    "ExportDeviceTelemetryFill",
    "ExportDeviceTelemetryFormat",
    "ExportDeviceTelemetryLayout",
    "ExportFleetTelemetryAgg",
    "ExportFleetTelemetryDownsample",
    "ExportFleetTelemetryFill",
    "ExportFleetTelemetryFormat",
    "ExportFleetTelemetryIncludeDescendants",
    "ExportFleetTelemetryLayout",
    "ExportFleetTelemetryNetworkIdType1",
    "ExportFleetTelemetryOnline",
    "ExportFleetTelemetrySiteIdType1",
    "Features",
    "Gateway",
    "GatewayList",
    "GatewayResponse",
    "GetDeviceHistoryAgg",
    "GetDeviceHistoryDownsample",
    "GetDeviceHistoryFill",
    "GetFleetLatestIncludeDescendants",
    "GetFleetLatestNetworkIdType1",
    "GetFleetLatestOnline",
    "GetFleetLatestSiteIdType1",
    "GetOpenApiDocumentResponse200",
    "GroupMember",
    "Health",
    "HealthDatabase",
    "HealthResponse",
    "HealthStatus",
    "History",
    "HistoryPoint",
    "HistoryResponse",
    "Identity",
    "IdentityBoundTo",
    "IdentityResponse",
    "IngestChirpStackBody",
    "IngestTheThingsStackApplicationUp",
    "IngestTheThingsStackApplicationUpEndDeviceIds",
    "IngestTheThingsStackApplicationUpJoinAccept",
    "IngestTheThingsStackApplicationUpLocationSolved",
    "IngestTheThingsStackApplicationUpLocationSolvedLocation",
    "IngestTheThingsStackApplicationUpUplinkMessage",
    "IngestTheThingsStackApplicationUpUplinkMessageDecodedPayloadType0",
    "IngestTheThingsStackApplicationUpUplinkMessageRxMetadata",
    "IngestTheThingsStackApplicationUpUplinkMessageRxMetadataGatewayIds",
    "LatestValues",
    "LatestValuesDerivedType0",
    "LatestValuesList",
    "LatestValuesResponse",
    "LatestValuesRetainedType0",
    "LatestValuesValues",
    "ListDevicesIncludeDescendants",
    "ListDevicesNetworkIdType1",
    "ListDevicesOnline",
    "ListDevicesSiteIdType1",
    "ListDevicesStatus",
    "ListGatewaysIncludeDescendants",
    "ListGatewaysNetworkIdType1",
    "ListGatewaysOnline",
    "ListGatewaysSiteIdType1",
    "ListGatewaysStatus",
    "ListNetworksIncludeDescendants",
    "ListNetworksSiteIdType1",
    "Location",
    "Member",
    "MemberList",
    "MemberResult",
    "MemberResultStatus",
    "Membership",
    "MemberStatus",
    "MulticastGroup",
    "MulticastGroupDetail",
    "MulticastGroupDetailResponse",
    "MulticastGroupList",
    "Network",
    "NetworkDetail",
    "NetworkDetailResponse",
    "NetworkDevice",
    "NetworkGateway",
    "NetworkList",
    "Pagination",
    "ProfileField",
    "ProfileFieldDataType",
    "ProfileFieldKind",
    "ProfileFieldMeasurementType1",
    "ProfileFieldMeasurementType2Type1",
    "ProfileFieldMeasurementType3Type1",
    "ProfileFieldRoleType1",
    "ProfileFieldRoleType2Type1",
    "ProfileFieldRoleType3Type1",
    "QueryData",
    "QueryPage",
    "QuerySeries",
    "QueryTelemetryQueryBody",
    "QueryTelemetryQueryBodyAggType0Type1",
    "QueryTelemetryQueryBodyDeviceSelection",
    "QueryTelemetryQueryBodyDownsampleType0",
    "QueryTelemetryQueryBodyFillType0",
    "QueuedDownlink",
    "QueuedDownlinkResponse",
    "RateLimit",
    "RemovedMember",
    "RemovedMemberResponse",
    "Role",
    "SendDownlinkBodyType0",
    "SendDownlinkBodyType1",
    "ServiceIndex",
    "ServiceIndexResponse",
    "Site",
    "SiteList",
    "SiteResponse",
    "StreamLatestIncludeDescendants",
    "StreamLatestNetworkIdType1",
    "StreamLatestOnline",
    "StreamLatestSiteIdType1",
    "SubAccount",
    "SubAccountList",
    "SubAccountResponse",
    "SubAccountStatus",
    "ValidatedMember",
    "ValidatedMemberOrValidatedUserResponse",
    "ValidatedUser",
    "ValidateMemberCredentials",
    "WebhookTestEvent",
    "WebhookTestEventData",
)
