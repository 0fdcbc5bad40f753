DROP INDEX "webhook_deliveries_ticket_order_idx";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "turn" integer;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_ticket_order_idx" ON "webhook_deliveries" USING btree ("endpoint_id","ticket_id",coalesce(turn, id),"id") WHERE status = 'pending';