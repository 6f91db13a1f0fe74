import { PDFDocument, StandardFonts } from "pdf-lib";

const A4: [number, number] = [595.28, 841.89];

/** A readable PDF standing in for a received demo fax, one A4 page per page. */
export async function demoFaxPdf(slug: string, pages: number): Promise<Uint8Array> {
	const pdf = await PDFDocument.create();
	const font = await pdf.embedFont(StandardFonts.Helvetica);
	const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
	for (let page = 1; page <= pages; page++) {
		const sheet = pdf.addPage(A4);
		sheet.drawText("TEST FAX", { x: 60, y: 740, size: 48, font: bold });
		sheet.drawText(`testfax-api demo fax ${slug}`, { x: 60, y: 700, size: 16, font });
		sheet.drawText(`Page ${page} of ${pages}`, { x: 60, y: 676, size: 16, font });
		for (let line = 0; line < 20; line++) {
			sheet.drawText("The quick brown fox jumps over the lazy dog. 0123456789", {
				x: 60,
				y: 620 - line * 24,
				size: 12,
				font,
			});
		}
	}
	return pdf.save();
}
