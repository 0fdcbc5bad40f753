#!/usr/bin/env bash
# The ticket walkthrough of docs/tickets.md, as one script: its steps are the page's commands, in
# its order (test/walkthrough/walkthrough.test.ts checks that each of the page's commands is here,
# and runs this script twice against the Worker under test). Run `npm run dev` with
# HELPDESK_DEV_API_KEY set, then `KEY=<that key> bash scripts/ticket-walkthrough.sh`; it may run
# again and again. Needs curl and jq.
set -euo pipefail
cd "$(mktemp -d)"

KEY=${KEY:?the demo owner\'s API key: KEY=hd_... bash scripts/ticket-walkthrough.sh}
H="Authorization: Bearer $KEY"
API=${API:-http://127.0.0.1:8787}
json() { curl -sS --fail-with-body -H "$H" -H 'Content-Type: application/json' "$@"; }

# 1. An inbox where billing questions arrive
ME=$(json $API/v2/me.json | jq '.user.id')
INBOX=$(json -G $API/v2/inboxes.json --data-urlencode 'filter={"name": "Billing"}' | jq '.inboxes[0].id // empty')
[ -n "$INBOX" ] || INBOX=$(json -X POST $API/v2/inboxes.json -d "{\"inbox\": {\"name\": \"Billing\", \"email\": \"billing@example.com\",
  \"users\": [{\"id\": $ME, \"meta\": {\"access\": \"full\"}}]}}" | jq '.inbox.id')
echo "inbox $INBOX"

# 2. The customer writes in
TICKET=$(json -X POST $API/v2/tickets.json -d "{\"ticket\": {\"subject\": \"My invoice is wrong\",
  \"inbox\": {\"id\": $INBOX}, \"customer\": {\"email\": \"ann@example.com\"}, \"notifyCustomer\": false,
  \"message\": \"The **total** on invoice 1042 is twice the order.\", \"editMethod\": \"markdown\"}}" | jq '.ticket.id')
echo "ticket $TICKET"

json "$API/v2/tickets/$TICKET.json?includes=messages,customers" \
  | jq -c '{status: .ticket.status, messageCount: .ticket.messageCount, first: .included.messages[0].message, customer: .included.customers[0].email}'

# 3. A file for the answer, in the platform's three steps
printf '%%PDF-1.4 demo\n' > invoice-1042.pdf
REF=$(json -X POST $API/v2/files/ref.json -d '{"filename": "invoice-1042.pdf", "mimeType": "application/pdf"}')
FILE=$(echo "$REF" | jq '.file.id'); URL=$(echo "$REF" | jq -r '.url')
ARGS=$(echo "$REF" | jq -r '.params | to_entries | map("-F \(.key)=\(.value)") | join(" ")')
curl -sS -o /dev/null -w 'upload %{http_code}\n' $ARGS -F file=@invoice-1042.pdf "$URL"
json -X PATCH $API/v2/files/$FILE.json -d '{"file": {}}' | jq -c '{confirmed: (.file.confirmedAt != null), size: .file.size}'

# 4. A note to a colleague, then the reply
json -X POST $API/v2/tickets/$TICKET/messages.json -d "{\"message\": \"Billing bug again?\", \"threadType\": \"note\", \"mentions\": [{\"id\": $ME}]}" | jq -c '.message.threadType'
json -X POST $API/v2/tickets/$TICKET/messages.json -d "{\"message\": \"Sorry! Here is the corrected invoice.\", \"files\": [{\"id\": $FILE}]}" | jq -c '.message.threadType'
json $API/v2/tickets/$TICKET.json | jq -c '.ticket.status'

# 5. Time, a tag, an owner
json -X POST $API/v2/timelogs.json -d "{\"timeLog\": {\"ticket\": {\"id\": $TICKET}, \"seconds\": 900, \"billable\": true}}" | jq -c '.timeLog.seconds'
TAG=$(json -G $API/v2/tags.json --data-urlencode 'filter={"name": "billing"}' | jq '.tags[0].id // empty')
[ -n "$TAG" ] || TAG=$(json -X POST $API/v2/tags.json -d '{"tag": {"name": "billing"}}' | jq '.tag.id')
json -X PATCH $API/v2/tickets/$TICKET.json -d "{\"ticket\": {\"agent\": {\"id\": $ME}, \"tags\": [{\"id\": $TAG}], \"isRead\": true}}" \
  | jq -c '{agent: .ticket.agent, isRead: .ticket.isRead}'

# 6. Found again and downloaded
json "$API/v2/search/tickets.json?search=invoice&tags=$TAG&statuses=3&ticket=$TICKET" | jq -c '[.tickets[].id, .meta.page.count]'
curl -sS -H "$H" -D - -o /dev/null $API/v2/tickets/$TICKET/files/$FILE/download | grep -i -E '^(HTTP|content-type|content-disposition)'

# 7. Solved, and what it took
json -X PATCH $API/v2/tickets/$TICKET.json -d '{"ticket": {"status": {"id": 5}}}' | jq -c '.ticket.status'
sleep 2
json "$API/v2/tickets/$TICKET/activities.json" | jq -c '[.ticketactivities[].eventType]'
json $API/v2/tickets/$TICKET.json | jq -c '{responseTimeMins: .ticket.responseTimeMins, resolutionTimeMins: .ticket.resolutionTimeMins}'
json -G "$API/v2/timelogs/totals.json" --data-urlencode "filter={\"ticket\": $TICKET}" | jq -c '.totals'

# 8. A copy kept in sync
json "$API/v2/tickets/changes.json?since=2020-01-01T00:00:00Z&pageSize=100" | jq -c '{count: .meta.count, endOfStream: .meta.endOfStream, hasCursor: (.meta.cursor != null)}'
