#!/usr/bin/env bash
# The ticket walkthrough of docs/tickets.md, as one script: run `npm run dev` with
# HELPDESK_DEV_API_KEY set, then `KEY=<that key> bash scripts/ticket-walkthrough.sh`. Needs curl and jq.
set -euo pipefail
H="Authorization: Bearer $KEY"
API=http://127.0.0.1:8787
json() { curl -sS -H "$H" -H 'Content-Type: application/json' "$@"; }

# 1. An inbox where billing questions arrive, worked by the caller
ME=$(json $API/v2/me.json | jq '.user.id')
INBOX=$(json -X POST $API/v2/inboxes.json -d "{\"inbox\": {\"name\": \"Billing $RANDOM\", \"email\": \"billing-$RANDOM@example.com\", \"users\": [{\"id\": $ME, \"meta\": {\"access\": \"full\"}}]}}" | jq '.inbox.id')

# 2. A ticket from a customer known by email (made if new); the message is the first entry
TICKET=$(json -X POST $API/v2/tickets.json -d "{
  \"ticket\": {\"subject\": \"My invoice is wrong\", \"inbox\": {\"id\": $INBOX},
             \"customer\": {\"email\": \"ann@example.com\"},
             \"message\": \"The **total** on invoice 1042 is twice the order.\", \"editMethod\": \"markdown\"}
}" | jq '.ticket.id')
echo "ticket $TICKET"

# 3. Read it with its thread and customer
json "$API/v2/tickets/$TICKET.json?includes=messages,customers" | jq '{status: .ticket.status, messageCount: .ticket.messageCount, first: .included.messages[0].message, customer: .included.customers[0].email}'

# 4. Attach a file: ref, upload, confirm
REF=$(json -X POST $API/v2/files/ref.json -d '{"filename": "invoice-1042.pdf", "mimeType": "application/pdf"}')
FILE=$(echo "$REF" | jq '.file.id')
URL=$(echo "$REF" | jq -r '.url')
printf '%%PDF-1.4 demo' > /tmp/invoice-1042.pdf
ARGS=$(echo "$REF" | jq -r '.params | to_entries | map("-F \(.key)=\(.value)") | join(" ")')
curl -sS -o /dev/null -w 'upload %{http_code}\n' $ARGS -F file=@/tmp/invoice-1042.pdf "$URL"
json -X PATCH $API/v2/files/$FILE.json -d '{"file": {}}' | jq '{confirmed: (.file.confirmedAt != null), size: .file.size}'

# 5. An internal note mentioning a teammate, then a reply with the file (the ticket moves to waiting)
json -X POST $API/v2/tickets/$TICKET/messages.json -d "{\"message\": \"Billing bug again?\", \"threadType\": \"note\", \"mentions\": [{\"id\": $ME}]}" | jq '.message.threadType'
json -X POST $API/v2/tickets/$TICKET/messages.json -d "{\"message\": \"Sorry! Here is the corrected invoice.\", \"files\": [{\"id\": $FILE}]}" | jq '.message.id'
json $API/v2/tickets/$TICKET.json | jq '.ticket.status'

# 6. Log time, tag it, assign it
json -X POST $API/v2/timelogs.json -d "{\"timeLog\": {\"ticket\": {\"id\": $TICKET}, \"seconds\": 900, \"billable\": true}}" | jq '.timeLog.seconds'
TAG=$(json -X POST $API/v2/tags.json -d "{\"tag\": {\"name\": \"billing-$RANDOM\"}}" | jq '.tag.id')
json -X PATCH $API/v2/tickets/$TICKET.json -d "{\"ticket\": {\"agent\": {\"id\": $ME}, \"tags\": [{\"id\": $TAG}], \"isRead\": true}}" | jq '{agent: .ticket.agent, isRead: .ticket.isRead}'

# 7. Find it
json "$API/v2/search/tickets.json?search=invoice&tags=$TAG&statuses=3" | jq '[.tickets[].id, .meta.page.count]'

# 8. Download the attachment as the customer's file
curl -sS -H "$H" -D - -o /dev/null $API/v2/tickets/$TICKET/files/$FILE/download | grep -i -E '^(HTTP|content-type|content-disposition)'

# 9. Solve it; read its history and timings
json -X PATCH $API/v2/tickets/$TICKET.json -d '{"ticket": {"status": {"id": 5}}}' | jq '.ticket.status'
sleep 2
json "$API/v2/tickets/$TICKET/activities.json" | jq '[.ticketactivities[].eventType]'
json $API/v2/tickets/$TICKET.json | jq '{responseTimeMins: .ticket.responseTimeMins, resolutionTimeMins: .ticket.resolutionTimeMins}'
json "$API/v2/timelogs/totals.json?filter=%7B%22ticket%22%3A$TICKET%7D" | jq '.totals'

# 10. Keep a copy in sync
json "$API/v2/tickets/changes.json?since=2020-01-01T00:00:00Z&pageSize=100" | jq '{count: .meta.count, endOfStream: .meta.endOfStream, cursor: .meta.cursor}'
