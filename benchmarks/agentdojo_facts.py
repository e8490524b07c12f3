"""What each AgentDojo tool does to the world, declared once, the way its author would: one row per tool.

The facts come from what a tool does, never from which tasks or attacks use it:

- effect: "read" only looks; "write" adds or sends; "destructive" removes, overwrites, or pays (money
  leaves the account, now or on a date), and the person confirms it first.
- outward: a call carries its arguments beyond this host: an email, a message, a payment, a booking, an
  invitation, a share, a web request.
- grounded: who or where an outward call goes to (a recipient, a participant, an address, a URL), and a
  secret the person sets: only the person's own words may say these.
- addressees: the grounded parameters that only say who receives what the call carries (an email's
  recipients, an event's participants, a message's recipient or channel). Not a payee (money is not words),
  not a URL (the request itself goes out), not a password, and not someone a call gives more than its
  arguments: a file shared, a channel joined, a workspace, an existing event. Such a value may be one the
  model read when all the call carries is the person's own words (`agent/provenance.py`).
- from_results: ids and names a read finds (an email id from a search, a hotel from a city's list), and
  what a call writes from what was read (a body, a summary, an amount on a bill).

A parameter in neither list is the model's to fill in (a date, a subject line it composes, a flag).
"""

from __future__ import annotations

from typing import NamedTuple

from agent.function_tool import Effect


class Facts(NamedTuple):
    effect: Effect
    outward: bool = False
    grounded: tuple[str, ...] = ()
    from_results: tuple[str, ...] = ()
    addressees: tuple[str, ...] = ()


READ = Facts("read")
OUT = True

FACTS: dict[str, Facts] = {
    # email (workspace, travel)
    "get_unread_emails": READ,
    "get_sent_emails": READ,
    "get_received_emails": READ,
    "get_draft_emails": READ,
    "search_emails": READ,
    "search_contacts_by_name": READ,
    "search_contacts_by_email": READ,
    "send_email": Facts(
        "write",
        OUT,
        grounded=("recipients", "cc", "bcc"),
        from_results=("subject", "body", "attachments"),
        addressees=("recipients", "cc", "bcc"),
    ),
    "delete_email": Facts("destructive", from_results=("email_id",)),
    # calendar (workspace, travel): invitations, changes and cancellations are mailed to the participants
    "get_current_day": READ,
    "search_calendar_events": READ,
    "get_day_calendar_events": READ,
    "create_calendar_event": Facts(
        "write", OUT, ("participants",), ("title", "description", "location"), ("participants",)
    ),
    "add_calendar_event_participants": Facts("write", OUT, ("participants",), ("event_id",)),
    "reschedule_calendar_event": Facts("destructive", OUT, from_results=("event_id",)),
    "cancel_calendar_event": Facts("destructive", OUT, from_results=("event_id",)),
    # cloud drive (workspace)
    "list_files": READ,
    "search_files": READ,
    "search_files_by_filename": READ,
    "get_file_by_id": Facts("read", from_results=("file_id",)),
    "create_file": Facts("write", from_results=("content",)),
    "append_to_file": Facts("write", from_results=("file_id", "content")),
    "share_file": Facts("write", OUT, ("email",), ("file_id",)),
    "delete_file": Facts("destructive", from_results=("file_id",)),
    # travel: the lookups take names a city's list found; a booking sends the person's details out
    "get_user_information": READ,
    "get_all_hotels_in_city": READ,
    "get_hotels_prices": Facts("read", from_results=("hotel_names",)),
    "get_rating_reviews_for_hotels": Facts("read", from_results=("hotel_names",)),
    "get_hotels_address": Facts("read", from_results=("hotel_name",)),
    "get_all_restaurants_in_city": READ,
    "get_cuisine_type_for_restaurants": Facts("read", from_results=("restaurant_names",)),
    "get_restaurants_address": Facts("read", from_results=("restaurant_names",)),
    "get_rating_reviews_for_restaurants": Facts("read", from_results=("restaurant_names",)),
    "get_dietary_restrictions_for_all_restaurants": Facts("read", from_results=("restaurant_names",)),
    "get_contact_information_for_restaurants": Facts("read", from_results=("restaurant_names",)),
    "get_price_for_restaurants": Facts("read", from_results=("restaurant_names",)),
    "check_restaurant_opening_hours": Facts("read", from_results=("restaurant_names",)),
    "get_all_car_rental_companies_in_city": READ,
    "get_car_types_available": Facts("read", from_results=("company_name",)),
    "get_rating_reviews_for_car_rental": Facts("read", from_results=("company_name",)),
    "get_car_fuel_options": Facts("read", from_results=("company_name",)),
    "get_car_rental_address": Facts("read", from_results=("company_name",)),
    "get_car_price_per_day": Facts("read", from_results=("company_name",)),
    "get_flight_information": READ,
    "reserve_hotel": Facts("write", OUT, from_results=("hotel",)),
    "reserve_car_rental": Facts("write", OUT, from_results=("company",)),
    "reserve_restaurant": Facts("write", OUT, from_results=("restaurant",)),
    # banking
    "get_iban": READ,
    "get_balance": READ,
    "get_most_recent_transactions": READ,
    "get_scheduled_transactions": READ,
    "get_user_info": READ,
    "read_file": READ,
    "send_money": Facts("destructive", OUT, ("recipient",), ("amount", "subject", "date")),
    "schedule_transaction": Facts("destructive", OUT, ("recipient",), ("amount", "subject", "date")),
    "update_scheduled_transaction": Facts(
        "destructive", OUT, ("recipient",), ("id", "amount", "subject", "date")
    ),
    "update_password": Facts("destructive", grounded=("password",)),
    "update_user_info": Facts("destructive", from_results=("first_name", "last_name", "street", "city")),
    # slack: adding someone to a channel lets them read it; a web request sends its URL out
    "get_channels": READ,
    "read_channel_messages": Facts("read", from_results=("channel",)),
    "read_inbox": Facts("read", from_results=("user",)),
    "get_users_in_channel": Facts("read", from_results=("channel",)),
    "send_direct_message": Facts("write", OUT, ("recipient",), ("body",), ("recipient",)),
    "send_channel_message": Facts("write", OUT, ("channel",), ("body",), ("channel",)),
    "add_user_to_channel": Facts("write", OUT, ("user",), ("channel",)),
    "invite_user_to_slack": Facts("write", OUT, ("user", "user_email")),
    "remove_user_from_slack": Facts("destructive", from_results=("user",)),
    "get_webpage": Facts("read", OUT, ("url",)),
    "post_webpage": Facts("write", OUT, ("url",), ("content",)),
}


def facts_problems(name: str, parameters: set[str]) -> list[str]:
    """What is wrong with the row of tool `name`, whose arguments are `parameters`."""
    if name not in FACTS:
        return [f"{name}: no row in FACTS"]
    facts = FACTS[name]
    named = facts.grounded + facts.from_results
    unknown = [p for p in named if p not in parameters]
    twice = set(facts.grounded) & set(facts.from_results)
    ungrounded = set(facts.addressees) - set(facts.grounded)
    return (
        [f"{name}: no parameter {p!r}" for p in unknown]
        + [f"{name}: {p!r} both grounded and from results" for p in sorted(twice)]
        + [f"{name}: addressee {p!r} is not grounded" for p in sorted(ungrounded)]
    )
